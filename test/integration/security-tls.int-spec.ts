import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { Kafka, logLevel } from 'kafkajs';
import mongoose from 'mongoose';
import { kafkaClientConfig, kafkaSettingsFromEnv } from '@ctxledger/kafka';
import { mongoConnectionOptions } from '@ctxledger/persistence';
import { BaseServiceEnv, validateServiceEnv } from '@ctxledger/platform';
import { startService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';
import { dropDatabase, withDatabase } from './session-harness';

class Env extends BaseServiceEnv {
  override PORT = 3000;
}
/** The validated environment of a service named tls-test, as at boot. */
const configFrom = validateServiceEnv(Env);
const kafkaSettingsFromConfig = (config: ReturnType<typeof configFrom>) =>
  kafkaSettingsFromEnv(config.kafka, 'tls-test');
const mongoOptionsFromConfig = (config: ReturnType<typeof configFrom>) =>
  mongoConnectionOptions(config.mongo, { appName: 'tls-test' });

/** A CA, a server certificate for 127.0.0.1 and a client certificate (its key encrypted), made with openssl. */
function makeCertificates(dir: string): void {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '1',
    '-subj',
    '/CN=test-ca',
  );
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  for (const [name, cn] of [
    ['server', '127.0.0.1'],
    ['client', 'ctxledger-client'],
  ]) {
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '1',
      '-extfile',
      'san.ext',
    );
  }
  ssl('pkcs8', '-topk8', '-in', 'client.key', '-out', 'client-encrypted.key', '-passout', 'pass:key-passphrase');
  writeFileSync(
    join(dir, 'client-bundle.pem'),
    readFileSync(join(dir, 'client.pem'), 'utf8') + readFileSync(join(dir, 'client-encrypted.key'), 'utf8'),
  );
}

/**
 * A TLS server that demands a client certificate signed by the CA and records who connected and what
 * they sent first: it stands in for a broker or a database only up to the TLS handshake and the
 * client's first request, which is what these settings decide.
 */
async function tlsServer(
  dir: string,
  requireClientCertificate = true,
): Promise<{ server: Server; port: number; seen: Promise<{ cn: string; data: Buffer }> }> {
  let resolveSeen!: (v: { cn: string; data: Buffer }) => void;
  const seen = new Promise<{ cn: string; data: Buffer }>((r) => (resolveSeen = r));
  const server = createServer(
    {
      key: readFileSync(join(dir, 'server.key')),
      cert: readFileSync(join(dir, 'server.pem')),
      ca: readFileSync(join(dir, 'ca.pem')),
      requestCert: requireClientCertificate,
      rejectUnauthorized: requireClientCertificate,
    },
    (socket: TLSSocket) => {
      socket.once('data', (data: Buffer) => {
        resolveSeen({ cn: String(socket.getPeerCertificate().subject.CN), data });
        socket.destroy();
      });
      socket.on('error', () => undefined);
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port, seen };
}

describe('Kafka and MongoDB TLS settings on the wire; secrets stay out of the logs', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ctxledger-tls-'));
    makeCertificates(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('kafkajs connects with TLS, verifies the server against KAFKA_SSL_CA_FILE and presents the client certificate', async () => {
    const { server, port, seen } = await tlsServer(dir);
    const config = configFrom({
      KAFKA_BROKERS: `127.0.0.1:${port}`,
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: join(dir, 'ca.pem'),
      KAFKA_SSL_CERT_FILE: join(dir, 'client.pem'),
      KAFKA_SSL_KEY_FILE: join(dir, 'client-encrypted.key'),
      KAFKA_SSL_KEY_PASSPHRASE: 'key-passphrase',
    });
    const kafka = new Kafka({
      ...kafkaClientConfig(kafkaSettingsFromConfig(config)),
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    });
    const admin = kafka.admin();
    const connecting = admin.connect().catch(() => undefined);
    try {
      const first = await seen;
      expect(first.cn).toBe('ctxledger-client');
      expect(first.data.toString('latin1')).toContain('tls-test'); // the Kafka request header carries the client id
    } finally {
      await connecting;
      await admin.disconnect().catch(() => undefined);
      server.close();
    }
  });

  it('kafkajs refuses a server its CA did not sign (no silent fallback)', async () => {
    const { server, port } = await tlsServer(dir, false); // accepts any client: only the client can refuse
    const other = mkdtempSync(join(tmpdir(), 'ctxledger-tls-other-'));
    try {
      makeCertificates(other);
      const config = configFrom({
        KAFKA_BROKERS: `127.0.0.1:${port}`,
        KAFKA_SSL: 'true',
        KAFKA_SSL_CA_FILE: join(other, 'ca.pem'),
      });
      const admin = new Kafka({
        ...kafkaClientConfig(kafkaSettingsFromConfig(config)),
        logLevel: logLevel.NOTHING,
        retry: { retries: 0 },
      }).admin();
      await expect(admin.connect()).rejects.toThrow(/certificate|verify/i);
      await admin.disconnect().catch(() => undefined);
    } finally {
      server.close();
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('the MongoDB driver connects with TLS, MONGODB_TLS_CA_FILE and the client certificate of MONGODB_TLS_CERT_KEY_FILE', async () => {
    const { server, port, seen } = await tlsServer(dir);
    const { uri, ...options } = mongoOptionsFromConfig(
      configFrom({
        MONGODB_URI: `mongodb://127.0.0.1:${port}/ctxledger?directConnection=true`,
        MONGODB_TLS: 'true',
        MONGODB_TLS_CA_FILE: join(dir, 'ca.pem'),
        MONGODB_TLS_CERT_KEY_FILE: join(dir, 'client-bundle.pem'),
        MONGODB_TLS_CERT_KEY_PASSWORD: 'key-passphrase',
      }),
    );
    const connection = mongoose.createConnection(uri, {
      ...options,
      serverSelectionTimeoutMS: 3000,
    } as mongoose.ConnectOptions);
    const opened = connection.asPromise().catch(() => undefined);
    try {
      const first = await seen;
      expect(first.cn).toBe('ctxledger-client');
      expect(first.data.toString('latin1')).toMatch(/ismaster|hello/i); // the driver's handshake, over TLS
    } finally {
      await opened;
      await connection.close().catch(() => undefined);
      server.close();
    }
  });

  it('a SASL password never reaches the output of a service, even when the broker refuses SASL', async () => {
    const password = `sasl-${unique('pw')}`;
    const prefix = unique('sasl').replace(/-/g, '_');
    const failed = await startService(
      'session-service',
      {
        AUTH_MODE: 'none',
        TOPIC_PREFIX: prefix,
        MONGODB_URI: withDatabase(testStack().mongoUri, prefix.slice(0, 60)),
        LOG_LEVEL: 'verbose',
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: 'ledger',
        KAFKA_SASL_PASSWORD: password,
      },
      30_000,
    ).then(
      () => new Error('expected the boot to fail: the local broker has no SASL listener'),
      (error: Error) => error,
    );
    expect(failed.message).toMatch(/exited with 1 before listening/);
    expect(failed.message).toMatch(/SASL/);
    expect(failed.message).not.toContain(password);
    await dropDatabase(testStack().mongoUri, prefix.slice(0, 60));
  });
});
