/**
 * The set-up the mutual-TLS tests of a store share (`test/etcd-tls.test.ts`,
 * `test/nats-tls.test.ts`): a server started on {@link makeCertificates}' certificates for the
 * file's tests, the client's TLS options, and the round trip that proves a connection works.
 */
import type { KV } from '@roster/kv-adapter';
import { afterAll, beforeAll, expect } from 'vitest';
import { makeCertificates, type TestCertificates } from './certificates.js';

/** A server on test certificates, set once `beforeAll` has run. */
export interface TlsServerFixture<S> {
  readonly certs: TestCertificates;
  readonly server: S;
}

/**
 * Makes the certificates and starts `start(certs)` in `beforeAll`; stops the server and removes
 * the certificates in `afterAll` (even when the start failed half-way). Call at a file's top level.
 */
export function serverOnTestCertificates<S extends { stop(): Promise<void> }>(start: (certs: TestCertificates) => Promise<S>): TlsServerFixture<S> {
  let certs: TestCertificates | undefined;
  let server: S | undefined;
  beforeAll(async () => {
    certs = await makeCertificates();
    server = await start(certs);
  });
  afterAll(async () => {
    await server?.stop();
    await certs?.remove();
  });
  return {
    get certs() {
      return certs!;
    },
    get server() {
      return server!;
    },
  };
}

/** The CA and the client certificate of `certs`, as Node.js TLS options. */
export async function clientTls(certs: TestCertificates): Promise<{ ca: string; cert: string; key: string }> {
  return { ca: await certs.read(certs.caCert), cert: await certs.read(certs.clientCert), key: await certs.read(certs.clientKey) };
}

/** A compare-and-set and a read on `kv` succeed; closes `kv` either way. */
export async function expectRoundTrip(kv: KV): Promise<void> {
  try {
    expect((await kv.compareAndSet('k', null, 'v')).swapped).toBe(true);
    expect(await kv.get('k')).toBe('v');
  } finally {
    await kv.close();
  }
}
