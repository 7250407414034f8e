/** The machine a run ran on. */
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';

/** What the report says about the machine. */
export interface MachineInfo {
  readonly cpuModel: string;
  readonly cpuCount: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly redis: string;
  readonly etcd: string;
  /** The PostgreSQL server's version, when a PostgreSQL row ran. */
  postgres?: string;
  /** The MariaDB server's version, when a MariaDB row ran. */
  mariadb?: string;
  /** The nats-server's version, when a NATS JetStream row ran. */
  nats?: string;
  /** The 1-minute load average at the start and at the end of the run. */
  readonly loadStart: number;
  loadEnd?: number;
}

/** Reads the machine (the server versions are given by the caller). */
export function machineInfo(redis: string, etcd: string): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cpuCount: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${osType()} ${release()}`,
    node: process.version,
    redis,
    etcd,
    loadStart: Math.round(loadavg()[0]! * 100) / 100,
  };
}

/** The current 1-minute load average. */
export function currentLoad(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}
