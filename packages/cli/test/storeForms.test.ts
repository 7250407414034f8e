import { checkStoreUrl } from '@roster/kv-adapter';
import { describe, expect, it } from 'vitest';
import { clusterTestCommand } from '../src/commands/clusterTest.js';
import { nodeCommand } from '../src/commands/node.js';
import { primaryCommand } from '../src/commands/primary.js';
import { STORE_FORMS, TLS_FORMS } from '../src/internal/storeForms.js';
import { tlsHeading } from '../src/internal/tlsOptions.js';

/** Every scheme `connectStore` knows, as its own message lists them for a scheme it does not. */
function librarySchemes(): string[] {
  try {
    checkStoreUrl('no-such-scheme://x');
  } catch (error) {
    const listed = /one of (.*), found/.exec((error as Error).message)?.[1] ?? '';
    return [...listed.matchAll(/`([a-z0-9+.-]+):\/\/`/g)].map((m) => m[1]!);
  }
  throw new Error('checkStoreUrl accepted an unknown scheme');
}

/** The commands that take a store URL. */
const STORE_COMMANDS = [nodeCommand, primaryCommand, clusterTestCommand];

describe('the store URL forms follow connectStore', () => {
  const schemes = librarySchemes();

  it('the library knows several schemes (the check reads them)', () => {
    expect(schemes).toEqual(expect.arrayContaining(['redis', 'rediss', 'postgres', 'etcd']));
  });

  it('every scheme connectStore knows has a form, and no form has a scheme it does not know', () => {
    const ours = STORE_FORMS.flatMap((f) => f.schemes);
    expect([...ours].sort()).toEqual([...schemes].sort());
  });

  it('every example is a URL checkStoreUrl accepts, for the backend the form says; every backend has one', () => {
    for (const { form, example } of STORE_FORMS) expect(checkStoreUrl(example.url).backend, form).toBe(example.backend);
    expect(new Set(STORE_FORMS.map((f) => f.example.backend))).toEqual(new Set(['redis', 'redis-sentinel', 'postgres', 'mysql', 'etcd', 'nats']));
  });

  for (const command of STORE_COMMANDS) {
    it(`${command.name} --help lists every form, names every scheme, and gives the TLS flags for every TLS form`, () => {
      for (const { form } of STORE_FORMS) expect(command.help).toContain(`  ${form}`);
      for (const scheme of schemes) expect(command.help).toContain(`${scheme}://`);
      expect(command.help).toContain(tlsHeading());
    });
  }

  it('the TLS heading names every form that asks for TLS', () => {
    const heading = tlsHeading().replaceAll('\n', ' ');
    expect(TLS_FORMS).toEqual(['rediss://', 'rediss+sentinel://', 'postgres://...?sslmode=...', 'mysql://...?ssl=...', 'etcds://', 'tls://']);
    for (const form of TLS_FORMS) expect(heading).toContain(form);
  });

  it('no help says Redis alone where any store is meant', () => {
    for (const command of STORE_COMMANDS) {
      expect(command.help).not.toMatch(/against a Redis store|over Redis|for rediss:\/\/ stores\b/);
    }
  });
});
