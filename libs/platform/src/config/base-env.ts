import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { getConfigToken } from '@nestjs/config';
import type { CrossChecked } from '@ctxledger/config';

/**
 * The variables every service has of its own: where it listens, how it logs, its health check. Each app extends
 * it with its own variables; the Kafka and MongoDB ones belong to libs/kafka (KafkaEnv) and libs/persistence
 * (MongoEnv), and the platform validates all of them together at boot.
 * Secrets (`@Secret()`) come only from the environment (or a `<NAME>_FILE` it names) and never appear in
 * a validation message or a log line.
 */
export class BaseServiceEnv implements CrossChecked {
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

  /** Rules between variables of the service (none here; an app's class adds its own). */
  crossCheck(): string[] {
    return [];
  }
}

/**
 * DI token of the service's own validated environment (its class extends BaseServiceEnv):
 * `@Inject(SERVICE_ENV) env: SessionServiceEnv`.
 */
export const SERVICE_ENV_NAMESPACE = 'service';
export const SERVICE_ENV = getConfigToken(SERVICE_ENV_NAMESPACE);
