import { BaseServiceEnv } from '@ctxledger/platform';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

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
}
