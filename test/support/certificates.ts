/**
 * Test certificates made with `openssl` at test time, in a fresh temp directory: a self-signed CA,
 * a server certificate for `127.0.0.1`/`localhost` signed by it, a client certificate signed by
 * it (mutual TLS), a second, unrelated CA (a "wrong CA"), and a server certificate that expired.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Paths of the files {@link makeCertificates} wrote (PEM). */
export interface TestCertificates {
  readonly dir: string;
  /** The CA that signed the server and client certificates. */
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** A CA that signed nothing here: trusting it alone must fail. */
  readonly otherCaCert: string;
  /** A server certificate, signed by the CA, whose validity ended in the past. */
  readonly expiredCert: string;
  readonly expiredKey: string;
  /** Reads one of the files. */
  read(path: string): Promise<string>;
  /** Removes the directory. */
  remove(): Promise<void>;
}

async function openssl(dir: string, args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir, timeout: 60_000 });
}

async function selfSignedCa(dir: string, name: string): Promise<void> {
  await openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=Roster test ${name}`]);
}

async function signed(dir: string, name: string, cn: string, extensions: string, validity: string[]): Promise<void> {
  await openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`]);
  await writeFile(join(dir, `${name}.ext`), extensions);
  await openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-extfile', `${name}.ext`, ...validity]);
}

/** Makes the certificates (about a second of `openssl`). */
export async function makeCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'roster-tls-'));
  try {
    await selfSignedCa(dir, 'ca');
    await selfSignedCa(dir, 'other-ca');
    const serverExt = 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n';
    await signed(dir, 'server', 'localhost', serverExt, ['-days', '2']);
    await signed(dir, 'client', 'roster-client', 'extendedKeyUsage=clientAuth\n', ['-days', '2']);
    // `-days -1`: the validity ends a day before it starts, i.e. in the past.
    await signed(dir, 'expired', 'localhost', serverExt, ['-days', '-1']);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const path = (name: string): string => join(dir, name);
  return {
    dir,
    caCert: path('ca.crt'),
    serverCert: path('server.crt'),
    serverKey: path('server.key'),
    clientCert: path('client.crt'),
    clientKey: path('client.key'),
    otherCaCert: path('other-ca.crt'),
    expiredCert: path('expired.crt'),
    expiredKey: path('expired.key'),
    read: (file) => readFile(file, 'utf8'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
