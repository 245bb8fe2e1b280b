import { BaseServiceEnv } from '@ctxledger/platform';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** Environment of the summarizer-service (validated at boot). */
export class SummarizerServiceEnv extends BaseServiceEnv {
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  override PORT: number = 3002;
}
