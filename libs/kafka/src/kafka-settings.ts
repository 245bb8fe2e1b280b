import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { KafkaConfig, SASLOptions } from 'kafkajs';
import { topicNames, type TopicNames } from '@ctxledger/contracts';

export interface KafkaSettings {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly topics: TopicNames;
  readonly topicPrefix: string;
  /** TLS options for the client (`true`: TLS with the system CAs), or absent for plaintext. */
  readonly ssl?: ConnectionOptions | true;
  /** SASL mechanism and credentials, or absent. */
  readonly sasl?: KafkaSasl;
}

export interface KafkaSasl {
  readonly mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  readonly username: string;
  readonly password: string;
}

/** The TLS and SASL variables of the environment (validated as KafkaEnv, config/kafka.env.ts). */
export interface KafkaSecurityInput {
  readonly KAFKA_SSL?: boolean;
  readonly KAFKA_SSL_CA_FILE?: string;
  readonly KAFKA_SSL_CA?: string;
  readonly KAFKA_SSL_CERT_FILE?: string;
  readonly KAFKA_SSL_CERT?: string;
  readonly KAFKA_SSL_KEY_FILE?: string;
  readonly KAFKA_SSL_KEY?: string;
  readonly KAFKA_SSL_KEY_PASSPHRASE?: string;
  readonly KAFKA_SSL_REJECT_UNAUTHORIZED?: boolean;
  readonly KAFKA_SASL_MECHANISM?: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  readonly KAFKA_SASL_USERNAME?: string;
  readonly KAFKA_SASL_PASSWORD?: string;
}

export function kafkaSettings(input: {
  brokers: readonly string[];
  clientId: string;
  topicPrefix: string;
  security?: KafkaSecurityInput;
}): KafkaSettings {
  const { security, ...rest } = input;
  const ssl = security && kafkaSsl(security);
  const sasl = security && kafkaSasl(security);
  return { ...rest, topics: topicNames(input.topicPrefix), ...(ssl && { ssl }), ...(sasl && { sasl }) };
}

/** The kafkajs client options of these settings (every client of a service is built from them). */
export function kafkaClientConfig(settings: KafkaSettings): Pick<KafkaConfig, 'clientId' | 'brokers' | 'ssl' | 'sasl'> {
  return {
    clientId: settings.clientId,
    brokers: [...settings.brokers],
    ...(settings.ssl !== undefined && { ssl: settings.ssl }),
    ...(settings.sasl !== undefined && { sasl: { ...settings.sasl } as SASLOptions }),
  };
}

/** What the connection uses, for a log line: never a key, passphrase or password. */
export function describeKafkaSecurity(settings: KafkaSettings): string {
  const tls =
    settings.ssl === undefined
      ? 'plaintext'
      : settings.ssl === true
        ? 'TLS (system CAs)'
        : `TLS (${[
            settings.ssl.ca ? 'own CA' : 'system CAs',
            settings.ssl.cert ? 'client certificate' : undefined,
            settings.ssl.rejectUnauthorized === false ? 'CERTIFICATES NOT VERIFIED' : undefined,
          ]
            .filter(Boolean)
            .join(', ')})`;
  return settings.sasl ? `${tls}, SASL ${settings.sasl.mechanism} as ${settings.sasl.username}` : tls;
}

function kafkaSsl(env: KafkaSecurityInput): ConnectionOptions | true | undefined {
  if (!env.KAFKA_SSL) return undefined;
  const pem = (inline: string | undefined, file: string | undefined) =>
    inline ?? (file !== undefined && file !== '' ? readFileSync(file, 'utf8') : undefined);
  const options: ConnectionOptions = {
    ...(pem(env.KAFKA_SSL_CA, env.KAFKA_SSL_CA_FILE) !== undefined && {
      ca: [pem(env.KAFKA_SSL_CA, env.KAFKA_SSL_CA_FILE)!],
    }),
    ...(pem(env.KAFKA_SSL_CERT, env.KAFKA_SSL_CERT_FILE) !== undefined && {
      cert: pem(env.KAFKA_SSL_CERT, env.KAFKA_SSL_CERT_FILE),
    }),
    ...(pem(env.KAFKA_SSL_KEY, env.KAFKA_SSL_KEY_FILE) !== undefined && {
      key: pem(env.KAFKA_SSL_KEY, env.KAFKA_SSL_KEY_FILE),
    }),
    ...(env.KAFKA_SSL_KEY_PASSPHRASE !== undefined && { passphrase: env.KAFKA_SSL_KEY_PASSPHRASE }),
    ...(env.KAFKA_SSL_REJECT_UNAUTHORIZED === false && { rejectUnauthorized: false }),
  };
  return Object.keys(options).length === 0 ? true : options;
}

function kafkaSasl(env: KafkaSecurityInput): KafkaSasl | undefined {
  if (!env.KAFKA_SASL_MECHANISM) return undefined;
  return {
    mechanism: env.KAFKA_SASL_MECHANISM,
    username: env.KAFKA_SASL_USERNAME ?? '',
    password: env.KAFKA_SASL_PASSWORD ?? '',
  };
}
