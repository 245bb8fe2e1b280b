import { BaseServiceEnv } from '@ctxledger/platform';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** Environment of the compaction-service (validated at boot). */
export class CompactionServiceEnv extends BaseServiceEnv {
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  override PORT: number = 3001;
}
