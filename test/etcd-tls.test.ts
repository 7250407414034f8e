import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreAccessError } from '@roster/kv-adapter';
import { EtcdKV } from '@roster/kv-adapter/etcd';
import { LocalEtcd } from '@roster/testing';
import { makeCertificates, type TestCertificates } from './support/certificates.js';

/** EtcdKV over `etcds://` to a real etcd serving TLS with client certificates required. */
const ETCD = process.env.ROSTER_ETCD_BINARY ?? '/usr/bin/etcd';

let certs: TestCertificates;
let etcd: LocalEtcd;
beforeAll(async () => {
  certs = await makeCertificates();
  etcd = await LocalEtcd.start({ binary: ETCD, tls: { certFile: certs.serverCert, keyFile: certs.serverKey, trustedCaFile: certs.caCert } });
});
afterAll(async () => {
  await etcd?.stop();
  await certs?.remove();
});

describe('EtcdKV over TLS (etcds://)', () => {
  it('works with the CA and a client certificate, as Node.js TLS options', async () => {
    const kv = await EtcdKV.connect({
      url: etcd.tlsUrl('tls'),
      tls: { ca: await certs.read(certs.caCert), cert: await certs.read(certs.clientCert), key: await certs.read(certs.clientKey) },
    });
    try {
      expect((await kv.compareAndSet('k', null, 'v')).swapped).toBe(true);
      expect(await kv.get('k')).toBe('v');
    } finally {
      await kv.close();
    }
  });

  it('a server certificate from another CA, or no client certificate, is a StoreAccessError at connect', async () => {
    const wrongCa = await EtcdKV.connect({ url: etcd.tlsUrl('tls'), connectTimeoutMs: 1000, tls: { ca: await certs.read(certs.otherCaCert) } }).catch((e: unknown) => e);
    expect(StoreAccessError.is(wrongCa), String(wrongCa)).toBe(true);
    const noClientCert = await EtcdKV.connect({ url: etcd.tlsUrl('tls'), connectTimeoutMs: 1000, tls: { ca: await certs.read(certs.caCert) } }).catch((e: unknown) => e);
    expect(StoreAccessError.is(noClientCert), String(noClientCert)).toBe(true);
  });
});
