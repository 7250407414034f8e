import { describe, expect, it } from 'vitest';
import { StoreAccessError } from '@roster/kv-adapter';
import { EtcdKV } from '@roster/kv-adapter/etcd';
import { LocalEtcd } from '@roster/testing';
import { clientTls, expectRoundTrip, serverOnTestCertificates } from './support/mutualTls.js';

/** EtcdKV over `etcds://` to a real etcd serving TLS with client certificates required. */
const ETCD = process.env.ROSTER_ETCD_BINARY ?? '/usr/bin/etcd';

const tls = serverOnTestCertificates((certs) =>
  LocalEtcd.start({ binary: ETCD, tls: { certFile: certs.serverCert, keyFile: certs.serverKey, trustedCaFile: certs.caCert } }),
);

describe('EtcdKV over TLS (etcds://)', () => {
  it('works with the CA and a client certificate, as Node.js TLS options', async () => {
    await expectRoundTrip(await EtcdKV.connect({ url: tls.server.tlsUrl('tls'), tls: await clientTls(tls.certs) }));
  });

  it('a server certificate from another CA, or no client certificate, is a StoreAccessError at connect', async () => {
    const { certs, server: etcd } = tls;
    const wrongCa = await EtcdKV.connect({ url: etcd.tlsUrl('tls'), connectTimeoutMs: 1000, tls: { ca: await certs.read(certs.otherCaCert) } }).catch((e: unknown) => e);
    expect(StoreAccessError.is(wrongCa), String(wrongCa)).toBe(true);
    const noClientCert = await EtcdKV.connect({ url: etcd.tlsUrl('tls'), connectTimeoutMs: 1000, tls: { ca: await certs.read(certs.caCert) } }).catch((e: unknown) => e);
    expect(StoreAccessError.is(noClientCert), String(noClientCert)).toBe(true);
  });
});
