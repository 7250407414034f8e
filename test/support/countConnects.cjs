/**
 * Preloaded into `roster node` processes by test/node-storm.measure.ts (`NODE_OPTIONS=--require`):
 * counts `net.Socket#connect` calls per port and writes the counts, with the process's CPU time,
 * to `$ROSTER_CONNECT_COUNT_DIR/<pid>.json` every 500 ms. Measurement only.
 */
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.ROSTER_CONNECT_COUNT_DIR;
if (dir) {
  const perPort = {};
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (...args) {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const port = typeof first === 'object' && first !== null ? Number(first.port) : Number(first);
    perPort[port] = (perPort[port] || 0) + 1;
    return original.apply(this, args);
  };
  const file = path.join(dir, `${process.pid}.json`);
  const write = () => {
    const cpu = process.cpuUsage();
    fs.writeFileSync(file, JSON.stringify({ perPort, cpuMs: (cpu.user + cpu.system) / 1000, at: Date.now() }));
  };
  setInterval(write, 500).unref();
}
