import 'reflect-metadata';
import { Transform } from 'class-transformer';
import { ArrayNotEmpty, IsBoolean, IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { envNamespace, IsReadableFile, isSet, Secret, ToBoolean, ToPem, type CrossChecked } from '@ctxledger/config';

const HOST_PORT = /^[^\s:,]+:\d{1,5}$/;

const PEM = /-----BEGIN [A-Z0-9 ]+-----/;

export const KAFKA_SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type KafkaSaslMechanism = (typeof KAFKA_SASL_MECHANISMS)[number];

/**
 * The Kafka variables of every service: brokers, topic prefix, TLS and SASL. Validated at boot with the rest of
 * the service's environment; secrets (`@Secret()`) never appear in a message or a log line.
 */
export class KafkaEnv implements CrossChecked {
  /** Comma-separated `host:port` list of Kafka bootstrap brokers. */
  @Transform(({ value }) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : value,
  )
  @ArrayNotEmpty()
  @Matches(HOST_PORT, { each: true, message: 'each broker must be host:port' })
  KAFKA_BROKERS: string[] = ['127.0.0.1:9092'];

  @Matches(/^[a-zA-Z0-9._-]{1,100}$/, { message: 'must be 1-100 of [a-zA-Z0-9._-]' })
  TOPIC_PREFIX: string = 'ctxledger';

  // ── TLS ────────────────────────────────────────────────────────────────────────────────────────────────

  /** TLS to the brokers. The CA, client certificate and key are optional (system CAs, no client auth). */
  @ToBoolean()
  @IsBoolean()
  KAFKA_SSL: boolean = false;

  /** PEM file of the CA(s) that signed the brokers' certificates (or the PEM itself in KAFKA_SSL_CA). */
  @IsOptional()
  @IsReadableFile()
  KAFKA_SSL_CA_FILE?: string;

  @IsOptional()
  @ToPem()
  @Matches(PEM, { message: 'must be PEM text (-----BEGIN ...)' })
  KAFKA_SSL_CA?: string;

  /** Client certificate (mutual TLS), as a file or PEM. */
  @IsOptional()
  @IsReadableFile()
  KAFKA_SSL_CERT_FILE?: string;

  @IsOptional()
  @ToPem()
  @Matches(PEM, { message: 'must be PEM text (-----BEGIN ...)' })
  KAFKA_SSL_CERT?: string;

  /** Client private key (mutual TLS), as a file or PEM. */
  @IsOptional()
  @IsReadableFile()
  KAFKA_SSL_KEY_FILE?: string;

  @Secret()
  @IsOptional()
  @ToPem()
  @Matches(PEM, { message: 'must be PEM text (-----BEGIN ...)' })
  KAFKA_SSL_KEY?: string;

  @Secret({ file: true })
  @IsOptional()
  @IsString()
  KAFKA_SSL_KEY_PASSPHRASE?: string;

  /** Verify the brokers' certificates (default true). `false` only for a test cluster: it allows a man in the middle. */
  @ToBoolean()
  @IsBoolean()
  KAFKA_SSL_REJECT_UNAUTHORIZED: boolean = true;

  // ── SASL ───────────────────────────────────────────────────────────────────────────────────────────────

  @IsOptional()
  @IsIn(KAFKA_SASL_MECHANISMS)
  KAFKA_SASL_MECHANISM?: KafkaSaslMechanism;

  @IsOptional()
  @IsString()
  KAFKA_SASL_USERNAME?: string;

  @Secret({ file: true })
  @IsOptional()
  @IsString()
  KAFKA_SASL_PASSWORD?: string;

  crossCheck(): string[] {
    const problems: string[] = [];
    const both = (a: keyof this, b: keyof this) => {
      if (isSet(this[a]) && isSet(this[b])) problems.push(`${String(a)}: set it or ${String(b)}, not both`);
    };
    both('KAFKA_SSL_CA', 'KAFKA_SSL_CA_FILE');
    both('KAFKA_SSL_CERT', 'KAFKA_SSL_CERT_FILE');
    both('KAFKA_SSL_KEY', 'KAFKA_SSL_KEY_FILE');
    if (!this.KAFKA_SSL) {
      for (const name of [
        'KAFKA_SSL_CA',
        'KAFKA_SSL_CA_FILE',
        'KAFKA_SSL_CERT',
        'KAFKA_SSL_CERT_FILE',
        'KAFKA_SSL_KEY',
        'KAFKA_SSL_KEY_FILE',
        'KAFKA_SSL_KEY_PASSPHRASE',
      ] as const) {
        if (isSet(this[name])) problems.push(`${name}: only used with KAFKA_SSL=true (set it, or remove ${name})`);
      }
    }
    const cert = isSet(this.KAFKA_SSL_CERT) || isSet(this.KAFKA_SSL_CERT_FILE);
    const key = isSet(this.KAFKA_SSL_KEY) || isSet(this.KAFKA_SSL_KEY_FILE);
    if (cert !== key)
      problems.push('KAFKA_SSL_CERT / KAFKA_SSL_KEY: a client certificate needs its key and the other way round');
    if (this.KAFKA_SASL_MECHANISM !== undefined) {
      if (!isSet(this.KAFKA_SASL_USERNAME)) problems.push('KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM');
      if (!isSet(this.KAFKA_SASL_PASSWORD))
        problems.push('KAFKA_SASL_PASSWORD: required with KAFKA_SASL_MECHANISM (or KAFKA_SASL_PASSWORD_FILE)');
    } else if (isSet(this.KAFKA_SASL_USERNAME) || isSet(this.KAFKA_SASL_PASSWORD)) {
      problems.push(
        `KAFKA_SASL_MECHANISM: required with a SASL user name or password (${KAFKA_SASL_MECHANISMS.join(', ')})`,
      );
    }
    return problems;
  }
}

/** The validated KafkaEnv of the service (`@Inject(kafkaEnv.KEY)`). */
export const kafkaEnv = envNamespace('kafka', KafkaEnv);
