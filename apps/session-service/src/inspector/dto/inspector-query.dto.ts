import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

/** A page: `offset` items skipped, at most `limit` returned. */
export class PageQueryDto {
  @ApiPropertyOptional({ description: 'Items to skip', minimum: 0, default: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(100_000_000)
  offset: number = 0;

  @ApiPropertyOptional({ description: 'Items at most (1-500)', minimum: 1, maximum: 500, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit: number = 100;
}

export class SessionListQueryDto {
  @ApiPropertyOptional({ description: 'Only sessions whose id contains this text', maxLength: 200 })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_:@-]{1,200}$/, { message: 'q: may contain only letters, digits and _:@- (at most 200)' })
  q?: string;

  @ApiPropertyOptional({ description: 'Sessions to skip (most recent activity first)', minimum: 0, default: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  offset: number = 0;

  @ApiPropertyOptional({ description: 'Sessions at most (1-100)', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 20;
}

export class EffectivePageQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['openai', 'anthropic', 'generic'], default: 'generic' })
  @IsOptional()
  @IsIn(['openai', 'anthropic', 'generic'])
  format: 'openai' | 'anthropic' | 'generic' = 'generic';
}
