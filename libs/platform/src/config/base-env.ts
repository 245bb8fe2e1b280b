import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { ArrayNotEmpty, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

const HOST_PORT = /^[^\s:,]+:\d{1,5}$/;

/** Environment shared by every service. Each app extends it with its own variables. */
export class BaseServiceEnv {
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
}
