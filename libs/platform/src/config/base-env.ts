import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { ArrayNotEmpty, IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { IsReadableFile, isSet, ToBoolean, ToPem, type CrossChecked } from './env-rules';
import { Secret } from './secret';

const HOST_PORT = /^[^\s:,]+:\d{1,5}$/;

const PEM = /-----BEGIN [A-Z0-9 ]+-----/;

export const KAFKA_SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type KafkaSaslMechanism = (typeof KAFKA_SASL_MECHANISMS)[number];

/**
 * Environment shared by every service. Each app extends it with its own variables.
 * Secrets (`@Secret()`) come only from the environment (or a `<NAME>_FILE` it names) and never appear in
 * a validation message or a log line.
 */
export class BaseServiceEnv implements CrossChecked {
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

  @IsString()
  @Matches(/^mongodb(\+srv)?:\/\/.+/, { message: 'must be a mongodb:// or mongodb+srv:// URI' })
  MONGODB_URI: string = 'mongodb://127.0.0.1:27017/ctxledger';

  @Matches(/^[a-zA-Z0-9._-]{1,100}$/, { message: 'must be 1-100 of [a-zA-Z0-9._-]' })
  TOPIC_PREFIX: string = 'ctxledger';

  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT!: number;

  @IsString()
  @Matches(/^[^:]+$/, { message: 'must not contain a colon' })
  HOST: string = '127.0.0.1';

  @IsIn(['text', 'json'])
  LOG_FORMAT: 'text' | 'json' = 'text';

  @IsOptional()
  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';

  /** How long a health check waits for Kafka or MongoDB before reporting it down. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(60_000)
  HEALTH_TIMEOUT_MS: number = 3000;

  /**
   * A consumer with an assigned partition that is behind and on which nothing was committed for this long makes
   * the health check fail (a handler retrying for ever, a consumer that runs but does not move). Longer than the
   * slowest legitimate record (an LLM call with its retries).
   */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  HEALTH_CONSUMER_STALL_MS: number = 120_000;

  // ── Kafka TLS ──────────────────────────────────────────────────────────────────────────────────────────

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

  // ── Kafka SASL ─────────────────────────────────────────────────────────────────────────────────────────

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

  // ── MongoDB TLS and credentials ────────────────────────────────────────────────────────────────────────

  /** TLS to MongoDB (the same as `tls=true` in MONGODB_URI; `mongodb+srv://` turns it on by itself). */
  @ToBoolean()
  @IsBoolean()
  MONGODB_TLS: boolean = false;

  /** PEM file of the CA(s) of the MongoDB servers (driver option `tlsCAFile`). */
  @IsOptional()
  @IsReadableFile()
  MONGODB_TLS_CA_FILE?: string;

  /** PEM file with the client certificate and its key (driver option `tlsCertificateKeyFile`). */
  @IsOptional()
  @IsReadableFile()
  MONGODB_TLS_CERT_KEY_FILE?: string;

  @Secret({ file: true })
  @IsOptional()
  @IsString()
  MONGODB_TLS_CERT_KEY_PASSWORD?: string;

  /** Credentials kept out of MONGODB_URI (so the URI can be logged and shown). */
  @IsOptional()
  @IsString()
  MONGODB_USERNAME?: string;

  @Secret({ file: true })
  @IsOptional()
  @IsString()
  MONGODB_PASSWORD?: string;

  /** Database that holds the user (driver option `authSource`; default the URI's database). */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_$-]{1,64}$/, { message: 'must be a database name' })
  MONGODB_AUTH_SOURCE?: string;

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
    if (!this.MONGODB_TLS && !this.MONGODB_URI.startsWith('mongodb+srv://')) {
      for (const name of [
        'MONGODB_TLS_CA_FILE',
        'MONGODB_TLS_CERT_KEY_FILE',
        'MONGODB_TLS_CERT_KEY_PASSWORD',
      ] as const) {
        if (isSet(this[name]) && !/[?&](tls|ssl)=true/i.test(this.MONGODB_URI))
          problems.push(`${name}: only used with MONGODB_TLS=true (or tls=true in MONGODB_URI)`);
      }
    }
    if (isSet(this.MONGODB_USERNAME) !== isSet(this.MONGODB_PASSWORD))
      problems.push('MONGODB_USERNAME / MONGODB_PASSWORD: give both or neither');
    if (isSet(this.MONGODB_USERNAME) && /^mongodb(\+srv)?:\/\/[^/?#]*@/.test(this.MONGODB_URI))
      problems.push('MONGODB_USERNAME: MONGODB_URI already carries credentials; give them in one place');
    return problems;
  }
}
