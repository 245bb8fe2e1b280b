import { isSet, Secret } from '@ctxledger/config';
import { BaseServiceEnv } from '@ctxledger/platform';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { parseApiKeys } from './api-keys';
import { resolveAuthMode, type AuthMode } from './auth-mode';

/** Environment of the session-service (validated at boot). */
export class SessionServiceEnv extends BaseServiceEnv {
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  override PORT: number = 3000;

  /** Consumer group of the read-model projector; default `<TOPIC_PREFIX>.session-projector`. */
  @IsOptional()
  @IsString()
  @Matches(/^[a-zA-Z0-9._-]{1,200}$/)
  PROJECTOR_GROUP_ID?: string;

  /** Largest HTTP request body accepted (bytes); a larger one gets 413. */
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  @Max(50_000_000)
  HTTP_BODY_LIMIT_BYTES: number = 4_000_000;

  /** How long an append waits for Kafka before answering 503. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(60_000)
  KAFKA_SEND_TIMEOUT_MS: number = 3000;

  /** Default and longest wait of `GET …/history?after=` for the projection to catch up. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(30_000)
  READ_YOUR_WRITES_DEFAULT_MS: number = 5000;

  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(120_000)
  READ_YOUR_WRITES_MAX_MS: number = 30_000;

  /** Partitions of each stream the projector works on at once. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(64)
  PROJECTOR_PARTITIONS_CONCURRENTLY: number = 3;

  /** `api-key` or `none` (see resolveAuthMode: unset means api-key with keys, none only on a loopback HOST). */
  @IsOptional()
  @IsIn(['api-key', 'none'])
  AUTH_MODE?: AuthMode;

  /** `tenant:key` entries (comma or newline separated) or a JSON object tenant → key(s); or API_KEYS_FILE. */
  @Secret({ file: true })
  @IsOptional()
  @IsString()
  API_KEYS?: string;

  /** Requests a tenant may make per RATE_LIMIT_WINDOW_MS on this instance (0: no limit). */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  RATE_LIMIT_REQUESTS: number = 600;

  @Type(() => Number)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  RATE_LIMIT_WINDOW_MS: number = 60_000;

  override crossCheck(): string[] {
    const problems = super.crossCheck();
    const auth = resolveAuthMode(this);
    if ('problem' in auth) problems.push(auth.problem);
    if (isSet(this.API_KEYS)) problems.push(...parseApiKeys(this.API_KEYS!).problems);
    return problems;
  }
}
