import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Matches } from 'class-validator';
import { validateEnv } from '@ctxledger/config';
import { BaseServiceEnv } from './base-env';
import { validateServiceEnv } from './service-env';

class TestEnv extends BaseServiceEnv {
  override PORT = 3000;
}
/** A service's whole environment, as the platform validates it at boot: its own, Kafka's and MongoDB's parts. */
const validate = validateServiceEnv(TestEnv);

describe('validateServiceEnv', () => {
  it('applies defaults and converts types, each library getting its own variables only', () => {
    const env = validate({ PORT: '4000', KAFKA_BROKERS: 'a:9092, b:9093', OPENAI_API_KEY: 'sk-not-theirs' });
    expect(env.service.PORT).toBe(4000);
    expect(env.kafka.KAFKA_BROKERS).toEqual(['a:9092', 'b:9093']);
    expect(env.mongo.MONGODB_URI).toBe('mongodb://127.0.0.1:27017/ctxledger');
    expect(env.kafka.TOPIC_PREFIX).toBe('ctxledger');
    expect(Object.keys(env.kafka)).not.toContain('MONGODB_URI');
    expect(Object.keys(env.mongo)).not.toContain('KAFKA_BROKERS');
    expect(JSON.stringify(env)).not.toContain('sk-not-theirs');
  });

  it.each([
    [{ KAFKA_BROKERS: 'localhost' }, /KAFKA_BROKERS: each broker must be host:port \(got \["localhost"\]\)/],
    [{ MONGODB_URI: 'postgres://x' }, /MONGODB_URI: must be a mongodb:\/\/ or mongodb\+srv:\/\/ URI/],
    [{ PORT: 'eighty' }, /PORT: .*integer/],
    [{ PORT: '70000' }, /PORT: .*65535/],
    [{ TOPIC_PREFIX: 'bad prefix!' }, /TOPIC_PREFIX: must be 1-100 of/],
    [{ LOG_FORMAT: 'xml' }, /LOG_FORMAT: .*text, json/],
  ])('names the bad variable in %j', (raw, message) => {
    expect(() => validate(raw)).toThrow(message);
  });

  it('lists every bad variable at once', () => {
    expect(() => validate({ PORT: 'x', MONGODB_URI: 'y' })).toThrow(/PORT[\s\S]*MONGODB_URI|MONGODB_URI[\s\S]*PORT/);
  });
});

describe('validateEnv: secrets and security settings', () => {
  const secret = 'S3cr3t-p4ssw0rd-that-must-never-show';
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ctxledger-env-'));
    writeFileSync(join(dir, 'password'), `${secret}\n`);
    writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const problems = (raw: Record<string, unknown>): string => {
    try {
      validate(raw);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected the configuration to be refused');
  };

  it('reads a secret from <NAME>_FILE (trailing newline dropped)', () => {
    const env = validate({
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'svc',
      KAFKA_SASL_PASSWORD_FILE: join(dir, 'password'),
    });
    expect(env.kafka.KAFKA_SASL_PASSWORD).toBe(secret);
  });

  it('never shows a secret value in a message, even when the secret itself is what is wrong', () => {
    const message = problems({
      KAFKA_SSL: 'true',
      KAFKA_SSL_KEY: secret, // not PEM: invalid
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_PASSWORD: secret, // no user name: refused
      MONGODB_URI: `mongodb:/user:${secret}@host/db`, // malformed URI with a password in it
    });
    expect(message).toMatch(/KAFKA_SSL_KEY: must be PEM text.*value hidden/);
    expect(message).toMatch(/MONGODB_URI: must be a mongodb:\/\/ or mongodb\+srv:\/\/ URI/);
    expect(message).not.toContain(secret);
    expect(message).not.toContain('p4ssw0rd');
  });

  it('masks the password of a URI it shows', () => {
    class WithUrl extends TestEnv {
      @Matches(/^https:/)
      SOME_URL = 'https://x';
    }
    const message = (() => {
      try {
        validateEnv(WithUrl)({ SOME_URL: `http://user:${secret}@example.com/` });
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(message).toContain('SOME_URL');
    expect(message).toContain('http://user:***@example.com/');
    expect(message).not.toContain(secret);
  });

  it('refuses a secret given twice, and an unreadable secret file, naming the path only', () => {
    expect(problems({ KAFKA_SASL_PASSWORD: secret, KAFKA_SASL_PASSWORD_FILE: join(dir, 'password') })).toMatch(
      /KAFKA_SASL_PASSWORD: set it or KAFKA_SASL_PASSWORD_FILE, not both/,
    );
    expect(problems({ MONGODB_PASSWORD_FILE: join(dir, 'missing') })).toMatch(
      /MONGODB_PASSWORD_FILE: cannot read ".*missing" \(ENOENT\)/,
    );
  });

  it.each([
    [{ KAFKA_SSL: 'ture' }, /KAFKA_SSL: .*boolean/],
    [
      { KAFKA_SSL_CA_FILE: '/nonexistent/ca.pem', KAFKA_SSL: 'true' },
      /KAFKA_SSL_CA_FILE: must be the path of a readable file/,
    ],
    [{ KAFKA_SASL_MECHANISM: 'gssapi' }, /KAFKA_SASL_MECHANISM: .*plain, scram-sha-256, scram-sha-512/],
    [{ KAFKA_SASL_MECHANISM: 'plain' }, /KAFKA_SASL_USERNAME: required[\s\S]*KAFKA_SASL_PASSWORD: required/],
    [{ KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }, /KAFKA_SASL_MECHANISM: required/],
    [{ KAFKA_SSL_CA_FILE: 'CA' }, /KAFKA_SSL_CA_FILE: only used with KAFKA_SSL=true/],
    [{ KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: 'CA' }, /a client certificate needs its key/],
    [{ MONGODB_TLS_CA_FILE: 'CA' }, /MONGODB_TLS_CA_FILE: only used with MONGODB_TLS=true/],
    [{ MONGODB_USERNAME: 'u' }, /MONGODB_USERNAME \/ MONGODB_PASSWORD: give both or neither/],
    [
      { MONGODB_USERNAME: 'u', MONGODB_PASSWORD: 'p', MONGODB_URI: 'mongodb://a:b@h/db' },
      /MONGODB_URI already carries credentials/,
    ],
  ])('refuses an inconsistent security setting %j', (raw, message) => {
    const withFiles = Object.fromEntries(
      Object.entries(raw).map(([k, v]) => [k, v === 'CA' ? join(dir, 'ca.pem') : v]),
    );
    expect(problems(withFiles)).toMatch(message);
  });

  it('accepts TLS from files and PEM written on one line with \\n', () => {
    const env = validate({
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA: '-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----',
      MONGODB_TLS: '1',
      MONGODB_TLS_CA_FILE: join(dir, 'ca.pem'),
    });
    expect(env.kafka.KAFKA_SSL).toBe(true);
    expect(env.kafka.KAFKA_SSL_CA).toBe('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----');
    expect(env.mongo.MONGODB_TLS).toBe(true);
    expect(env.kafka.KAFKA_SSL_REJECT_UNAUTHORIZED).toBe(true);
  });
});
