import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateEnv } from '@ctxledger/config';
import { describeKafkaSecurity, kafkaClientConfig, type KafkaSettings } from '../kafka-settings';
import { kafkaSettingsFromEnv } from '../kafka.module';
import { KafkaEnv } from './kafka.env';

/** The settings a service builds from this environment, through the same validation and mapping as at boot. */
function settingsFrom(raw: Record<string, string>): KafkaSettings {
  return kafkaSettingsFromEnv(validateEnv(KafkaEnv)(raw), 'svc');
}

describe('Kafka TLS and SASL settings reach the kafkajs client options', () => {
  let dir: string;
  const pem = (label: string, body: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ctxledger-kafka-'));
    writeFileSync(join(dir, 'ca.pem'), pem('CERTIFICATE', 'CA'));
    writeFileSync(join(dir, 'cert.pem'), pem('CERTIFICATE', 'CLIENT'));
    writeFileSync(join(dir, 'key.pem'), pem('PRIVATE KEY', 'KEY'));
    writeFileSync(join(dir, 'password'), 'scram-secret\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('plaintext and no SASL by default', () => {
    const config = kafkaClientConfig(settingsFrom({}));
    expect(config).toEqual({ clientId: 'svc', brokers: ['127.0.0.1:9092'] });
    expect(describeKafkaSecurity(settingsFrom({}))).toBe('plaintext');
  });

  it('TLS with the system CAs', () => {
    expect(kafkaClientConfig(settingsFrom({ KAFKA_SSL: 'true' })).ssl).toBe(true);
  });

  it('mutual TLS from files, SCRAM-SHA-512 with the password from a file', () => {
    const settings = settingsFrom({
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: join(dir, 'ca.pem'),
      KAFKA_SSL_CERT_FILE: join(dir, 'cert.pem'),
      KAFKA_SSL_KEY_FILE: join(dir, 'key.pem'),
      KAFKA_SSL_KEY_PASSPHRASE: 'key-pass',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'ledger',
      KAFKA_SASL_PASSWORD_FILE: join(dir, 'password'),
    });
    expect(kafkaClientConfig(settings)).toEqual({
      clientId: 'svc',
      brokers: ['127.0.0.1:9092'],
      ssl: {
        ca: [pem('CERTIFICATE', 'CA')],
        cert: pem('CERTIFICATE', 'CLIENT'),
        key: pem('PRIVATE KEY', 'KEY'),
        passphrase: 'key-pass',
      },
      sasl: { mechanism: 'scram-sha-512', username: 'ledger', password: 'scram-secret' },
    });
    const described = describeKafkaSecurity(settings);
    expect(described).toBe('TLS (own CA, client certificate), SASL scram-sha-512 as ledger');
    expect(described).not.toContain('scram-secret');
    expect(described).not.toContain('key-pass');
  });

  it('PEM inline, SASL PLAIN, verification off said loudly', () => {
    const settings = settingsFrom({
      KAFKA_SSL: 'yes',
      KAFKA_SSL_CA: '-----BEGIN CERTIFICATE-----\\nINLINE\\n-----END CERTIFICATE-----',
      KAFKA_SSL_REJECT_UNAUTHORIZED: 'false',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'u',
      KAFKA_SASL_PASSWORD: 'p',
    });
    expect(kafkaClientConfig(settings).ssl).toEqual({
      ca: ['-----BEGIN CERTIFICATE-----\nINLINE\n-----END CERTIFICATE-----'],
      rejectUnauthorized: false,
    });
    expect(kafkaClientConfig(settings).sasl).toEqual({ mechanism: 'plain', username: 'u', password: 'p' });
    expect(describeKafkaSecurity(settings)).toContain('CERTIFICATES NOT VERIFIED');
  });

  it.each(['scram-sha-256'])('SASL %s', (mechanism) => {
    const settings = settingsFrom({
      KAFKA_SASL_MECHANISM: mechanism,
      KAFKA_SASL_USERNAME: 'u',
      KAFKA_SASL_PASSWORD: 'p',
    });
    expect(kafkaClientConfig(settings).sasl).toEqual({ mechanism, username: 'u', password: 'p' });
    expect(kafkaClientConfig(settings).ssl).toBeUndefined();
  });
});
