import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

/** Read-your-writes: `after` (a write's waitToken) and how long to wait for it. */
export class AfterQueryDto {
  @ApiPropertyOptional({ description: 'A waitToken of a write: answer only once the read model shows it' })
  @IsOptional()
  @Matches(/^\d{1,19}$/, { message: 'after must be a waitToken (the digits of a Kafka offset)' })
  after?: string;

  @ApiPropertyOptional({ description: 'How long `after` may wait (ms; default 5000, at most 30000)', minimum: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(120_000)
  waitMs?: number;
}

export class HistoryQueryDto extends AfterQueryDto {
  @ApiPropertyOptional({
    enum: ['effective', 'full'],
    default: 'effective',
    description: 'effective: with the blocks overlaid; full: every original',
  })
  @IsOptional()
  @IsIn(['effective', 'full'])
  view: 'effective' | 'full' = 'effective';

  @ApiPropertyOptional({ enum: ['openai', 'anthropic', 'generic'], default: 'generic' })
  @IsOptional()
  @IsIn(['openai', 'anthropic', 'generic'])
  format: 'openai' | 'anthropic' | 'generic' = 'generic';

  @ApiPropertyOptional({ description: "History budget in tokens instead of the session's", minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  budget?: number;
}
