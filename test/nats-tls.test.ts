import { describe, expect, it } from 'vitest';
import { StoreAccessError } from '@roster/kv-adapter';
import { NatsKV } from '@roster/kv-adapter/nats';
import { LocalNats } from '@roster/testing';
import { clientTls, expectRoundTrip, serverOnTestCertificates } from './support/mutualTls.js';

/** NatsKV over `tls://` to a real nats-server serving TLS with client certificates required. */
const NATS = process.env.ROSTER_NATS_BINARY;

const tls = serverOnTestCertificates((certs) =>
  LocalNats.start({ ...(NATS && { binary: NATS }), tls: { certFile: certs.serverCert, keyFile: certs.serverKey, caFile: certs.caCert } }),
);

describe('NatsKV over TLS (tls://)', () => {
  it('works with the CA and a client certificate, as Node.js TLS options', async () => {
    await expectRoundTrip(await NatsKV.connect({ url: tls.server.url('tls'), tls: await clientTls(tls.certs) }));
  });

  it('a server certificate from another CA is a StoreAccessError at connect', async () => {
    const { certs, server: nats } = tls;
    const wrongCa = await NatsKV.connect({ url: nats.url('tls'), connectTimeoutMs: 1000, tls: { ca: await certs.read(certs.otherCaCert) } }).catch((e: unknown) => e);
    expect(StoreAccessError.is(wrongCa), String(wrongCa)).toBe(true);
  });

  it('no client certificate: nats.js sees only a timeout (the server closes after the handshake), so a StoreUnavailableError', async () => {
    // A known limit of the v3 client (docs/stores.md): the server's refusal comes as a TLS alert
    // after the handshake, which the client does not report; it waits for INFO until its timeout.
    const { certs, server: nats } = tls;
    const noClientCert = await NatsKV.connect({ url: nats.url('tls'), connectTimeoutMs: 1000, tls: { ca: await certs.read(certs.caCert) } }).catch((e: unknown) => e);
    expect(noClientCert).toMatchObject({ code: 'KV_STORE_UNAVAILABLE' });
    expect(String(noClientCert)).toMatch(/not ready within 1000 ms/);
  });
});
