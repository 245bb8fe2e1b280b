import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mongo } from 'mongoose';
import { validateEnv } from '@ctxledger/config';
import { mongoConnectionOptions } from '../persistence.module';
import { MongoEnv } from './mongo.env';

/** The driver's own parse of the options a service builds from this environment (no connection made). */
function driverOptions(raw: Record<string, string>, database?: string) {
  const { uri, ...options } = mongoConnectionOptions(validateEnv(MongoEnv)(raw), { appName: 'svc', database });
  return new mongo.MongoClient(uri, options as mongo.MongoClientOptions).options;
}

describe('MongoDB TLS and credentials reach the driver', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ctxledger-mongo-'));
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n');
    writeFileSync(join(dir, 'client.pem'), '-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----\n');
    writeFileSync(join(dir, 'password'), 'mongo-secret\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('no TLS and no credentials by default', () => {
    const options = driverOptions({});
    expect(options.tls).toBeFalsy();
    expect(options.credentials).toBeUndefined();
    expect(options.appName).toBe('svc');
  });

  it('TLS with a CA file and a client certificate, credentials from variables (password from a file)', () => {
    const options = driverOptions({
      MONGODB_URI: 'mongodb://db.example:27017/ctxledger',
      MONGODB_TLS: 'true',
      MONGODB_TLS_CA_FILE: join(dir, 'ca.pem'),
      MONGODB_TLS_CERT_KEY_FILE: join(dir, 'client.pem'),
      MONGODB_TLS_CERT_KEY_PASSWORD: 'cert-pass',
      MONGODB_USERNAME: 'ledger',
      MONGODB_PASSWORD_FILE: join(dir, 'password'),
      MONGODB_AUTH_SOURCE: 'admin',
    });
    expect(options.tls).toBe(true);
    expect(options.tlsCAFile).toBe(join(dir, 'ca.pem'));
    expect(options.tlsCertificateKeyFile).toBe(join(dir, 'client.pem'));
    expect(options.passphrase).toBe('cert-pass'); // the driver's name for tlsCertificateKeyFilePassword
    expect(options.credentials?.username).toBe('ledger');
    expect(options.credentials?.password).toBe('mongo-secret');
    expect(options.credentials?.source).toBe('admin');
  });

  it("another database than the URI's, options kept (the projection rebuild)", () => {
    const options = driverOptions({ MONGODB_URI: 'mongodb://h/live?tls=true' }, 'rebuilt');
    expect(options.dbName).toBe('rebuilt');
    expect(options.tls).toBe(true);
  });

  it('TLS options in the URI keep working', () => {
    const options = driverOptions({ MONGODB_URI: 'mongodb://h/db?tls=true', MONGODB_TLS_CA_FILE: join(dir, 'ca.pem') });
    expect(options.tls).toBe(true);
    expect(options.tlsCAFile).toBe(join(dir, 'ca.pem'));
  });
});
