import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The published packages as a stranger gets them: every public package of packages/ is packed by
// plain `npm pack` (which runs its `prepack` build), the tarballs are installed by `npm install`
// into a fresh project under the system temp directory, outside this workspace, and that project
// then elects a leader through `import` and through `require()` (with @roster/http's metrics and
// probes served on a node:http server), typechecks a strict TypeScript consumer under
// moduleResolution node16, nodenext and bundler, and runs the `roster` bin.
//
// Why plain npm: a package.json that only pnpm can publish (a `workspace:` range that only
// `pnpm pack` rewrites) breaks the day someone runs `npm publish`. The packages depend on each
// other by plain `^0.1.0` ranges, which pnpm links to the workspace (linkWorkspacePackages in
// pnpm-workspace.yaml), so the package.json in the tarball is the committed one.
//
// Network: the @roster tarballs come from here and satisfy each other's ranges. Their third-party
// dependencies (ioredis, prom-client, pino, pg and what they depend on) come from
// npm's own cache (~/.npm): the install runs --offline first, with no network at all. pnpm's store
// is not npm's cache, so on a machine whose npm cache lacks them (a bare CI machine) that fails,
// and the install runs again with --prefer-offline, which downloads them from the registry (about
// 1.5 MB of tarballs, 3 s) and fills the cache for the next run; npm then also asks the registry
// about the @roster names, which it does not have (404), and installs the tarballs all the same.
// The TypeScript check uses the workspace's own `typescript` and `@types/node`.
//
// Then a user of one store: a PostgreSQL user's project (every public tarball but the cli, and
// `pg`) and a Redis user's (the same, and `ioredis`), each a fresh npm install. The PostgreSQL one
// has no ioredis anywhere in node_modules, starts @roster/testing's LocalPostgres, opens it with
// connectStore and works on it, and shows that neither the ES modules it resolved nor require.cache
// hold ioredis; its strict TypeScript build needs no ioredis types. The Redis one has no pg, and
// loads no pg. Both use PostgreSQL's and Redis' own binaries, as the rest of test/ does.
//
// About 60 s: packing (a tsc build per package) is most of it, installing a few seconds when npm's
// cache is warm.

const root = fileURLToPath(new URL('..', import.meta.url));

interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  exports?: Record<string, string | Record<string, string>>;
  bin?: Record<string, string>;
  [field: string]: unknown;
}

interface Packed {
  readonly dir: string;
  readonly pkg: PackageJson;
  readonly tarball: string;
  /** The paths in the tarball, relative to its `package/`. */
  readonly files: readonly string[];
  /** Its package.json and LICENSE, as packed. */
  readonly packedJson: PackageJson;
  readonly packedLicense: string;
  readonly size: number;
}

/** Every package of packages/ that is not private: what `changeset publish` publishes. */
function publicPackages(): { dir: string; pkg: PackageJson }[] {
  return readdirSync(join(root, 'packages'))
    .sort()
    .map((name) => join(root, 'packages', name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson }))
    .filter(({ pkg }) => pkg.private !== true);
}

interface Run {
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `file args` in `cwd`; rejects with its whole output when it exits non-zero. */
function run(file: string, args: readonly string[], cwd: string, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} (in ${cwd}) failed: ${error.message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** `npm`, as a consumer would run it; `npm pack` also runs the package's `prepack`. */
const npm = (args: readonly string[], cwd: string): Promise<Run> => run('npm', args, cwd);

/**
 * A fresh ES-module project in `dir` with `specs` (tarballs, registry names) installed by npm:
 * from npm's cache only, else (a bare machine) with the registry too. Resolves to where npm found
 * the third-party dependencies.
 */
async function installProject(dir: string, specs: readonly string[]): Promise<string> {
  const install = (network: '--offline' | '--prefer-offline'): Promise<Run> => {
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    rmSync(join(dir, 'package-lock.json'), { force: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'roster-consumer', version: '1.0.0', private: true, type: 'module' }, null, 2));
    const options = ['--ignore-scripts=false', '--foreground-scripts', '--no-audit', '--no-fund', '--loglevel=error']; // scripts allowed, as for most users: then none must exist (below)
    return npm(['install', network, ...options, ...specs], dir);
  };
  try {
    await install('--offline');
    return "npm's cache only";
  } catch {
    await install('--prefer-offline');
    return "npm's cache and the registry";
  }
}

/** The names of every package installed under `dir`'s node_modules, nested ones too. */
function installedPackages(dir: string): string[] {
  const seen: string[] = [];
  const visit = (modules: string): void => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      if (entry.startsWith('@')) {
        for (const scoped of readdirSync(join(modules, entry))) {
          seen.push(`${entry}/${scoped}`);
          visit(join(modules, entry, scoped, 'node_modules'));
        }
        continue;
      }
      seen.push(entry);
      visit(join(modules, entry, 'node_modules'));
    }
  };
  visit(join(dir, 'node_modules'));
  return seen;
}

let work: string;
let consumer: string;
let packed: Packed[] = [];
const timings: Record<string, number> = {};
/** Where npm found the third-party dependencies. */
let installedFrom = '';

async function timed<T>(what: string, f: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await f();
  } finally {
    timings[what] = Math.round(performance.now() - start);
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'roster-consumer-'));
  const packs = join(work, 'packs');
  consumer = join(work, 'app');
  mkdirSync(packs);
  mkdirSync(consumer);

  await timed('npm pack (with prepack builds)', async () => {
    for (const { dir, pkg } of publicPackages()) {
      // One at a time: each runs a tsc build, and the machine may have two cores.
      const { stdout } = await npm(['pack', '--json', '--pack-destination', packs], dir);
      const [report] = JSON.parse(stdout) as [{ filename: string; size: number; files: { path: string }[] }];
      const tarball = join(packs, report.filename);
      const extracted = join(work, 'extracted', pkg.name);
      mkdirSync(extracted, { recursive: true });
      await run('tar', ['-xzf', tarball, '-C', extracted, 'package/package.json', 'package/LICENSE'], work);
      packed.push({
        dir,
        pkg,
        tarball,
        files: report.files.map((f) => f.path),
        packedJson: JSON.parse(readFileSync(join(extracted, 'package', 'package.json'), 'utf8')) as PackageJson,
        packedLicense: readFileSync(join(extracted, 'package', 'LICENSE'), 'utf8'),
        size: report.size,
      });
    }
  });

  await timed('npm install', async () => {
    installedFrom = await installProject(consumer, packed.map((p) => p.tarball));
  });
}, 300_000);

afterAll(() => {
  // Figures for the log: how long it took and how big the tarballs are.
  console.log(`consumer test: ${JSON.stringify(timings)} (ms), third-party dependencies from ${installedFrom}; tarballs: ${packed.map((p) => `${p.pkg.name} ${(p.size / 1024).toFixed(1)} KiB`).join(', ')}`);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the published packages, installed by npm outside the workspace', () => {
  it('every public package is packed', () => {
    const names = packed.map((p) => p.pkg.name);
    expect(names).toEqual(
      expect.arrayContaining(['@roster/kv-adapter', '@roster/follower', '@roster/election', '@roster/cluster', '@roster/primary', '@roster/client', '@roster/http', '@roster/cli', '@roster/testing']),
    );
    expect(names).not.toContain('@roster/sim');
    expect(names).not.toContain('@roster/bench');
    expect(names).not.toContain('@roster/demo');
  });

  it('@roster/cli carries no demo: no tinypool dependency, no demo file, nothing that loads tinypool', async () => {
    const cli = packed.find((p) => p.pkg.name === '@roster/cli')!;
    const { dependencies = {}, optionalDependencies = {}, peerDependencies = {} } = cli.packedJson as { dependencies?: object; optionalDependencies?: object; peerDependencies?: object };
    expect(Object.keys({ ...dependencies, ...optionalDependencies, ...peerDependencies })).not.toContain('tinypool');
    expect(cli.files.filter((f) => /(^|\/)demo([/.]|$)|kvBridge|ClusterView|LiveDashboard|DemoWeb/i.test(f))).toEqual([]);
    expect(JSON.stringify(cli.packedJson.sideEffects)).not.toMatch(/demo/);
    // No packed file imports tinypool (the demo's worker pool) or names the demo's entry point.
    const whole = join(work, 'extracted-cli');
    mkdirSync(whole, { recursive: true });
    await run('tar', ['-xzf', cli.tarball, '-C', whole], work);
    const loading = cli.files.filter((f) => /\.(js|ts|json)$/.test(f) && /tinypool|dist\/demo\//.test(readFileSync(join(whole, 'package', f), 'utf8')));
    expect(loading).toEqual([]);
  });

  it('each tarball has its dist/, README, CHANGELOG and the Apache-2.0 LICENSE, and every path its exports map names', () => {
    const license = readFileSync(join(root, 'LICENSE'), 'utf8');
    expect(license).toContain('Apache License\n                           Version 2.0, January 2004');
    for (const p of packed) {
      expect(p.files, p.pkg.name).toEqual(expect.arrayContaining(['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']));
      expect(p.packedLicense, `${p.pkg.name}'s LICENSE is the repository's`).toBe(license);
      for (const [subpath, target] of Object.entries(p.packedJson.exports ?? {})) {
        for (const file of typeof target === 'string' ? [target] : Object.values(target)) {
          expect(p.files, `${p.pkg.name} exports ${subpath} as ${file}`).toContain(file.replace(/^\.\//, ''));
        }
      }
      for (const file of Object.values(p.packedJson.bin ?? {})) expect(p.files, `${p.pkg.name} bin ${file}`).toContain(file.replace(/^\.\//, ''));
      expect(p.files.filter((f) => /^(test|node_modules)\/|\.tsbuildinfo$|\.tgz$/.test(f)), p.pkg.name).toEqual([]);
    }
  });

  it('no tarball ships a stale dist/ file (one whose source is gone)', () => {
    for (const p of packed) {
      const sources = new Set(p.files.filter((f) => f.startsWith('src/')));
      const stale = p.files.filter((f) => f.startsWith('dist/') && f.endsWith('.js') && !sources.has(f.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts')));
      expect(stale, `${p.pkg.name}: rebuild from a clean dist/ (rm -rf ${p.dir}/dist && pnpm build)`).toEqual([]);
    }
  });

  it('no packed package.json has a workspace: range, and each says how it is published', () => {
    for (const p of packed) {
      expect(JSON.stringify(p.packedJson), p.pkg.name).not.toContain('workspace:');
      expect(p.packedJson.publishConfig, p.pkg.name).toEqual({ access: 'public' });
      expect(p.packedJson.engines, p.pkg.name).toEqual({ node: '>=20.19' });
      expect(p.packedJson.license, p.pkg.name).toBe('Apache-2.0');
      // Nothing runs on import, so bundlers may drop what is unused; the cli's bins are the exception.
      expect(p.packedJson.sideEffects, p.pkg.name).toEqual(p.packedJson.bin ? expect.arrayContaining(['./bin/*.js']) : false);
      expect(p.packedJson.repository, p.pkg.name).toMatchObject({ type: 'git', directory: `packages/${p.dir.split(/[\\/]/).at(-1)}` });
    }
  });

  it('installs without running or needing an install script, and compiles nothing', () => {
    const withScripts: string[] = [];
    const seen: string[] = [];
    const visit = (modules: string): void => {
      if (!existsSync(modules)) return;
      for (const entry of readdirSync(modules)) {
        if (entry.startsWith('.')) continue;
        if (entry.startsWith('@')) {
          visit(join(modules, entry));
          continue;
        }
        const dir = join(modules, entry);
        const json = join(dir, 'package.json');
        if (!existsSync(json)) continue;
        seen.push(entry);
        const { scripts = {} } = JSON.parse(readFileSync(json, 'utf8')) as { scripts?: Record<string, string> };
        for (const hook of ['preinstall', 'install', 'postinstall']) if (scripts[hook]) withScripts.push(`${entry}: ${hook}`);
        // npm runs `node-gyp rebuild` for a binding.gyp even with no install script.
        if (existsSync(join(dir, 'binding.gyp'))) withScripts.push(`${entry}: binding.gyp`);
        visit(join(dir, 'node_modules'));
      }
    };
    visit(join(consumer, 'node_modules'));
    expect(seen).toEqual(expect.arrayContaining(['election', 'http', 'cli', 'ioredis', 'prom-client']));
    expect(withScripts).toEqual([]);
    expect(existsSync(join(consumer, 'node_modules', 'redis-memory-server'))).toBe(false);
    // The demo's worker pool: `pnpm demo` is the repository's private @roster/demo, never installed.
    expect(seen).not.toContain('tinypool');
    expect(existsSync(join(consumer, 'node_modules', 'tinypool'))).toBe(false);
  });

  /**
   * Three nodes on one MemoryKV elect a leader and agree on it; node `a`'s metrics (in a
   * prom-client registry) and probes are served by @roster/http's handlers on a node:http server
   * and read back; prints it all as JSON.
   */
  const electionBody = `
const registry = new Registry();
const roster = observe({ registry });
const kv = roster.instrument(new MemoryKV());
const nodes = ['a', 'b', 'c'].map((id) => createNode({ store: kv, group: 'consumer', env: 'test', id, intervalMs: 50, timeoutMs: 250 }));
roster.attach(nodes[0]);
const probes = roster.probes;
const server = createServer((req, res) => void roster.routes[req.url](req, res));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = 'http://127.0.0.1:' + server.address().port;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
await Promise.all(nodes.map((n) => n.start()));
const deadline = Date.now() + 10_000;
let leader;
while (!(leader = nodes.find((n) => n.isLeader())) || !nodes.every((n) => n.leader?.id === leader.leader?.id) || !probes.readiness().ok) {
  if (Date.now() > deadline) throw new Error('no agreed leader within 10 s: ' + nodes.map((n) => n.role + '/' + n.leader?.id).join(' ') + ' ' + probes.readiness().reason);
  await sleep(20);
}
const readyz = await fetch(base + '/readyz');
const scrape = await (await fetch(base + '/metrics')).text();
const result = {
  leader: leader.leader.id,
  token: String(leader.leader.token),
  followed: nodes.map((n) => n.leader?.id),
  clock: typeof new VirtualClock().now(),
  readyz: [readyz.status, await readyz.json()],
  metrics: scrape.split('\\n').filter((line) => /^(roster_(is_leader|members) |leader_election_master_status)/.test(line)),
  aLeads: nodes[0].isLeader(),
};
roster.close();
server.close();
await Promise.all(nodes.map((n) => n.stop()));
await kv.close();
console.log(JSON.stringify(result));
`;

  /** Every public package's entry points, loaded by `load` (import or require). */
  const entryPoints = (): string[] =>
    packed.flatMap((p) => Object.keys(p.packedJson.exports ?? { '.': '' }).filter((s) => s !== './package.json').map((s) => (s === '.' ? p.pkg.name : `${p.pkg.name}/${s.slice(2)}`)));

  function expectElected(stdout: string): void {
    const last = stdout.trim().split('\n').at(-1)!;
    const result = JSON.parse(last) as { leader: string; token: string; followed: string[]; clock: string; readyz: unknown; metrics: string[]; aLeads: boolean };
    expect(['a', 'b', 'c']).toContain(result.leader);
    expect(result.followed).toEqual([result.leader, result.leader, result.leader]);
    expect(BigInt(result.token)).toBeGreaterThan(0n);
    expect(result.clock).toBe('number');
    expect(result.readyz).toEqual([200, { ready: true, reason: 'ok' }]);
    expect(result.metrics).toContain(`roster_is_leader ${result.aLeads ? 1 : 0}`);
    expect(result.metrics).toContain(`leader_election_master_status{name="consumer"} ${result.aLeads ? 1 : 0}`);
    expect(result.metrics.some((line) => /^roster_members [1-3]$/.test(line))).toBe(true);
  }

  it('an ES module imports every entry point and elects a leader on MemoryKV', async () => {
    const script = [
      `import { createNode } from '@roster/election';`,
      `import { MemoryKV } from '@roster/kv-adapter';`,
      `import { VirtualClock } from '@roster/testing';`,
      `import { observe } from '@roster/http';`,
      `import { Registry } from 'prom-client';`,
      `import { createServer } from 'node:http';`,
      `for (const name of ${JSON.stringify(entryPoints())}) if (Object.keys(await import(name)).length === 0) throw new Error(name + ' exports nothing');`,
      electionBody,
    ].join('\n');
    writeFileSync(join(consumer, 'elect.mjs'), script);
    expectElected((await run(process.execPath, ['elect.mjs'], consumer, 30_000)).stdout);
  });

  it('a CommonJS script require()s every entry point and elects a leader (require(esm), Node 20.19+)', async () => {
    const script = [
      `const { createNode } = require('@roster/election');`,
      `const { MemoryKV } = require('@roster/kv-adapter');`,
      `const { VirtualClock } = require('@roster/testing');`,
      `const { observe } = require('@roster/http');`,
      `const { Registry } = require('prom-client');`,
      `const { createServer } = require('node:http');`,
      `for (const name of ${JSON.stringify(entryPoints())}) if (Object.keys(require(name)).length === 0) throw new Error(name + ' exports nothing');`,
      `(async () => {${electionBody}})().catch((error) => { console.error(error); process.exit(1); });`,
    ].join('\n');
    writeFileSync(join(consumer, 'elect.cjs'), script);
    expectElected((await run(process.execPath, ['elect.cjs'], consumer, 30_000)).stdout);
  });

  it('a strict TypeScript consumer typechecks under moduleResolution node16, nodenext and bundler', async () => {
    const imports = entryPoints()
      .map((name, i) => `import * as entry${i} from '${name}';`)
      .join('\n');
    writeFileSync(
      join(consumer, 'consumer.ts'),
      `${imports}
import { createNode, type Leadership, type NodeSettings, type RosterNode } from '@roster/election';
import { MemoryKV, type KV } from '@roster/kv-adapter';
import { VirtualClock } from '@roster/testing';
import { runCli, type CliIO } from '@roster/cli';
import { InstrumentedKV, PromRosterMetrics, createMetricsHandler, createProbeHandler, observe, watchProbes, type HttpHandler, type ObservedRoutes, type ProbeResult, type RosterMetrics } from '@roster/http';
import { Registry } from 'prom-client';

export const entries: readonly object[] = [${entryPoints().map((_, i) => `entry${i}`).join(', ')}];
const kv: KV = new MemoryKV();
export const node: RosterNode = createNode({ store: kv, group: 'consumer', env: 'test', intervalMs: 50, timeoutMs: 250 });
node.on('leader', ({ leader }) => {
  const token: bigint | undefined = leader?.token;
  void token;
});
node.whileLeader(({ signal, token }: Leadership) => {
  const fence: bigint = token;
  void [signal.aborted, fence];
});
export const settings: NodeSettings = node.settings;
export const now: number = new VirtualClock().now();
// @ts-expect-error intervalMs is a number: the types are real, not any
createNode({ store: kv, group: 'consumer', env: 'test', intervalMs: '50' });
export const cli: (args: readonly string[], io: CliIO) => Promise<number> = runCli;
// @roster/http on the service's own prom-client registry (prom-client, its peer dependency).
const registry = new Registry();
export const metrics: RosterMetrics = new PromRosterMetrics({ registry });
const store = new InstrumentedKV(kv, { metrics });
const probes = watchProbes(node, { store });
// The one call: a node's metrics, probes and routes from the node and a registry.
const roster = observe({ registry: new Registry() });
export const observed: RosterNode = createNode({ store: roster.instrument(kv), group: 'consumer', env: 'test' });
roster.attach(observed);
export const routes: ObservedRoutes = roster.routes;
export const ready: ProbeResult = probes.readiness();
export const handlers: readonly HttpHandler[] = [createProbeHandler(probes, 'liveness'), createMetricsHandler(registry)];
// @ts-expect-error a probe is liveness or readiness
createProbeHandler(probes, 'startup');
`,
    );
    // A CommonJS consumer: TypeScript 5.8+ types require() of an ES module under nodenext.
    writeFileSync(
      join(consumer, 'consumer-require.cts'),
      `import election = require('@roster/election');
import kvAdapter = require('@roster/kv-adapter');
import http = require('@roster/http');
export const node: election.RosterNode = election.createNode({ store: new kvAdapter.MemoryKV(), group: 'consumer', env: 'test' });
export const probes: http.NodeProbes = http.watchProbes(node, { store: new http.InstrumentedKV(new kvAdapter.MemoryKV()) });
`,
    );
    const strict = {
      target: 'ES2022',
      lib: ['ES2022'],
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      noImplicitOverride: true,
      isolatedModules: true,
      skipLibCheck: false, // check the packages' .d.ts files too, as a consumer's strictest build does
      noEmit: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules', '@types')], // the workspace's @types/node: nothing to download
    };
    const configs = {
      node16: { compilerOptions: { ...strict, module: 'node16', moduleResolution: 'node16' }, files: ['consumer.ts'] },
      nodenext: { compilerOptions: { ...strict, module: 'nodenext', moduleResolution: 'nodenext' }, files: ['consumer.ts', 'consumer-require.cts'] },
      bundler: { compilerOptions: { ...strict, module: 'preserve', moduleResolution: 'bundler' }, files: ['consumer.ts'] },
    };
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    await timed('tsc (3 configurations)', async () => {
      for (const [name, config] of Object.entries(configs)) {
        writeFileSync(join(consumer, `tsconfig.${name}.json`), JSON.stringify(config, null, 2));
        await run(process.execPath, [tsc, '-p', `tsconfig.${name}.json`], consumer);
      }
    });
  });

  it('`roster --version`, `roster node --help` and `cluster-test --help` run from the install; `roster demo` is no command of it', async () => {
    const { version } = packed.find((p) => p.pkg.name === '@roster/cli')!.packedJson;
    // `--`: npx would take --version as its own. `--no`: never download a missing bin.
    expect((await run('npx', ['--no', '--', 'roster', '--version'], consumer)).stdout).toBe(`${version}\n`);
    expect((await run('npx', ['--no', '--', 'roster', 'node', '--help'], consumer)).stdout).toMatch(/^Usage: roster node \[--store URL/);
    expect((await run('npx', ['--no', '--', 'cluster-test', '--help'], consumer)).stdout).toMatch(/^Usage: cluster-test/);
    const help = (await run('npx', ['--no', '--', 'roster', '--help'], consumer)).stdout;
    expect(help).not.toMatch(/\bdemo\b/);
    // The demo is `pnpm demo` from a clone of the repository (the private @roster/demo).
    await expect(run('npx', ['--no', '--', 'roster', 'demo'], consumer)).rejects.toThrow(/roster: unknown command "demo"/);
  });
});

/** A resolve hook that logs the URL of every ES module the process resolves to `$ROSTER_LOADED_LOG`. */
const LOADED_HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.ROSTER_LOADED_LOG, resolved.url + '\\n');
  return resolved;
}
`;

/**
 * The prologue and epilogue of a store user's script: `loaded()` is what the process has loaded so
 * far, as the ES modules it resolved (the hook above) and the CommonJS modules in require.cache
 * (ioredis and pg are CommonJS: whoever imports them, they land there).
 */
const LOADED_HELPERS = `import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const loaded = () => ({ esm: readFileSync(process.env.ROSTER_LOADED_LOG, 'utf8').split('\\n').filter(Boolean), cjs: Object.keys(createRequire(import.meta.url).cache) });
`;

interface StoreUserRun {
  readonly backend: boolean;
  readonly value: string | null;
  readonly swapped: boolean;
  readonly loaded: { readonly esm: readonly string[]; readonly cjs: readonly string[] };
  readonly otherStore: { readonly missingDriver: boolean; readonly packageName?: string; readonly message?: string };
}

/** Runs `script` in `dir` under the resolve hook and returns what it printed last, as JSON. */
async function runStoreUser(dir: string, name: string, script: string): Promise<StoreUserRun> {
  writeFileSync(join(dir, 'loaded-hooks.mjs'), LOADED_HOOKS);
  writeFileSync(join(dir, 'register-hooks.mjs'), `import { register } from 'node:module';\nregister('./loaded-hooks.mjs', import.meta.url);\n`);
  writeFileSync(join(dir, name), LOADED_HELPERS + script);
  const log = join(dir, `${name}.loaded`);
  writeFileSync(log, '');
  const { stdout } = await new Promise<Run>((resolve, reject) => {
    execFile(process.execPath, ['--import', './register-hooks.mjs', name], { cwd: dir, timeout: 120_000, env: { ...process.env, ROSTER_LOADED_LOG: log } }, (error, out, err) =>
      error ? reject(new Error(`${name} failed: ${error.message}\n${out}\n${err}`)) : resolve({ stdout: out, stderr: err }),
    );
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as StoreUserRun;
}

/** The installed packages (the last `node_modules/<name>` of each path) that `paths` come from. */
function packagesOf(paths: readonly string[]): string[] {
  const names = paths.map((path) => /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(decodeURIComponent(path))?.[1]).filter((name): name is string => name !== undefined);
  return [...new Set(names)].sort();
}

describe("a user of one store installs and loads that store's driver only", () => {
  let pgApp: string;
  let redisApp: string;
  /** What a service's project installs: every public package but the cli (the sidecar, which opens any store URL and so ships both drivers). */
  const libraries = (): string[] => packed.filter((p) => p.pkg.name !== '@roster/cli').map((p) => p.tarball);

  beforeAll(async () => {
    pgApp = join(work, 'pg-app');
    redisApp = join(work, 'redis-app');
    mkdirSync(pgApp);
    mkdirSync(redisApp);
    await timed('npm install (a PostgreSQL user, a Redis user)', async () => {
      await installProject(pgApp, [...libraries(), 'pg@^8.11.0']);
      await installProject(redisApp, [...libraries(), 'ioredis@^5.11.1']);
    });
  }, 300_000);

  it('a PostgreSQL user installs pg, and no ioredis nor any other Redis package', () => {
    const installed = installedPackages(pgApp);
    expect(installed).toEqual(expect.arrayContaining(['pg', '@roster/kv-adapter', '@roster/election', '@roster/testing']));
    expect(installed.filter((name) => /redis/i.test(name))).toEqual([]);
  });

  it('a PostgreSQL user opens LocalPostgres with connectStore (the postgres entry) and works on it, having loaded no ioredis', async () => {
    const result = await runStoreUser(
      pgApp,
      'pg-user.mjs',
      `import { connectStore, MissingDriverError } from '@roster/kv-adapter';
import { PostgresKV } from '@roster/kv-adapter/postgres';
import { LocalPostgres } from '@roster/testing';
const server = await LocalPostgres.start();
try {
  const kv = await connectStore(server.url, { connectTimeoutMs: 10_000 });
  const backend = kv instanceof PostgresKV;
  await kv.set('greeting', 'hello');
  const value = await kv.get('greeting');
  const { swapped } = await kv.compareAndSet('greeting', value, 'moved');
  await kv.close();
  const snapshot = loaded();
  const error = await connectStore('redis://127.0.0.1:1').then(() => undefined, (e) => e);
  const otherStore = { missingDriver: MissingDriverError.is(error), packageName: error?.packageName, message: error?.message };
  console.log(JSON.stringify({ backend, value, swapped, loaded: snapshot, otherStore }));
} finally {
  await server.destroy();
}
`,
    );
    expect(result).toMatchObject({ backend: true, value: 'hello', swapped: true });
    // What it loaded: pg (and pg's own packages), Roster's packages, and no ioredis.
    expect(packagesOf(result.loaded.cjs)).toContain('pg');
    expect(packagesOf([...result.loaded.esm, ...result.loaded.cjs]).filter((name) => /redis/i.test(name))).toEqual([]);
    expect(result.loaded.esm.some((url) => url.endsWith('/@roster/kv-adapter/dist/postgres.js'))).toBe(true);
    expect(result.loaded.esm.some((url) => url.endsWith('/@roster/kv-adapter/dist/redis.js'))).toBe(false);
    // A Redis URL in this install: a typed error that names the package to install.
    expect(result.otherStore).toMatchObject({ missingDriver: true, packageName: 'ioredis' });
    expect(result.otherStore.message).toMatch(/npm install ioredis/);
    console.info(`a PostgreSQL user loaded: ${packagesOf([...result.loaded.esm, ...result.loaded.cjs]).join(', ')}`);
  }, 120_000);

  it("a PostgreSQL user's strict TypeScript build of the main, postgres and etcd entries and @roster/testing needs no ioredis types", async () => {
    writeFileSync(
      join(pgApp, 'consumer-pg.ts'),
      `import { connectStore, MemoryKV, type KV, type ConnectStoreOptions } from '@roster/kv-adapter';
import { PostgresKV } from '@roster/kv-adapter/postgres';
import { EtcdKV } from '@roster/kv-adapter/etcd';
import { FaultInjector, LocalPostgres, VirtualClock } from '@roster/testing';
import { createNode } from '@roster/election';
export const open: (url: string, options?: ConnectStoreOptions) => Promise<KV> = connectStore;
export const backends: readonly object[] = [MemoryKV, PostgresKV, EtcdKV, createNode];
export const doubles: readonly object[] = [FaultInjector, LocalPostgres, VirtualClock];
`,
    );
    const config = {
      compilerOptions: {
        target: 'ES2022', lib: ['ES2022'], module: 'nodenext', moduleResolution: 'nodenext', strict: true, exactOptionalPropertyTypes: true,
        skipLibCheck: false, noEmit: true, types: ['node'], typeRoots: [join(root, 'node_modules', '@types')],
      },
      files: ['consumer-pg.ts'],
    };
    writeFileSync(join(pgApp, 'tsconfig.json'), JSON.stringify(config, null, 2));
    await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], pgApp);
  });

  it('a Redis user installs ioredis and no pg; it opens LocalRedis with connectStore (the redis entry) and loads no pg', async () => {
    const installed = installedPackages(redisApp);
    expect(installed).toEqual(expect.arrayContaining(['ioredis', '@roster/kv-adapter', '@roster/testing']));
    expect(installed.filter((name) => name === 'pg' || name.startsWith('pg-'))).toEqual([]);
    const result = await runStoreUser(
      redisApp,
      'redis-user.mjs',
      `import { connectStore, MissingDriverError } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { LocalRedis } from '@roster/testing';
const server = await LocalRedis.start();
try {
  const kv = await connectStore(server.url, { connectTimeoutMs: 10_000 });
  const backend = kv instanceof RedisKV;
  await kv.set('greeting', 'hello');
  const value = await kv.get('greeting');
  const { swapped } = await kv.compareAndSet('greeting', value, 'moved');
  await kv.close();
  const snapshot = loaded();
  const error = await connectStore('postgres://roster@127.0.0.1:1/app').then(() => undefined, (e) => e);
  const otherStore = { missingDriver: MissingDriverError.is(error), packageName: error?.packageName, message: error?.message };
  console.log(JSON.stringify({ backend, value, swapped, loaded: snapshot, otherStore }));
} finally {
  await server.stop();
}
`,
    );
    expect(result).toMatchObject({ backend: true, value: 'hello', swapped: true });
    expect(packagesOf(result.loaded.cjs)).toContain('ioredis');
    expect(packagesOf([...result.loaded.esm, ...result.loaded.cjs]).filter((name) => name === 'pg' || name.startsWith('pg-'))).toEqual([]);
    expect(result.otherStore).toMatchObject({ missingDriver: true, packageName: 'pg' });
  }, 120_000);
});

describe('only @roster/testing ships local servers and fault doubles', () => {
  /** The names of what @roster/testing alone may ship. */
  const TESTING_ONLY = /\b(LocalRedis\w*|LocalEtcd|LocalPostgres|FaultyKV|FaultInjector|ServerProcess)\b/;

  it('no other tarball has a file that names one (its CHANGELOG aside: history), and @roster/testing has them all and needs no driver', async () => {
    const offending: string[] = [];
    for (const p of packed) {
      const whole = join(work, 'whole', p.pkg.name);
      mkdirSync(whole, { recursive: true });
      await run('tar', ['-xzf', p.tarball, '-C', whole], work);
      if (p.pkg.name === '@roster/testing') continue;
      for (const file of p.files) {
        if (file === 'CHANGELOG.md') continue;
        if (TESTING_ONLY.test(readFileSync(join(whole, 'package', file), 'utf8'))) offending.push(`${p.pkg.name}: ${file}`);
      }
    }
    expect(offending).toEqual([]);
    const testing = packed.find((p) => p.pkg.name === '@roster/testing')!;
    expect(testing.files).toEqual(
      expect.arrayContaining(['dist/redis/LocalRedis.js', 'dist/redis/LocalRedisCluster.js', 'dist/etcd/LocalEtcd.js', 'dist/postgres/LocalPostgres.js', 'dist/faults/FaultyKV.js', 'dist/process/ServerProcess.js']),
    );
    const { dependencies = {}, peerDependencies = {} } = testing.packedJson as { dependencies?: object; peerDependencies?: object };
    expect(Object.keys({ ...dependencies, ...peerDependencies })).toEqual(['@roster/kv-adapter']);
  });
});
