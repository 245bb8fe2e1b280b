import { BaseServiceEnv } from '@ctxledger/platform';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** Environment of the session-service (validated at boot). */
export class SessionServiceEnv extends BaseServiceEnv {
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  override PORT: number = 3000;
}
