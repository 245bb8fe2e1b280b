import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Min,
  ValidateNested,
  ArrayMinSize,
} from 'class-validator';
import { STAGES } from '@ctxledger/context-engine';
import { LIMITS } from '../limits';
import { MessageDto } from './message.dto';

/** The engine's stages: one list, so the wire contract cannot drift from what the engine emits. */
export const BLOCK_STAGES = STAGES;

export class PositionRangeDto {
  @IsInt()
  @Min(0)
  from!: number;

  @IsInt()
  @Min(0)
  to!: number;
}

export class BlockEditDto extends PositionRangeDto {
  @ArrayMaxSize(LIMITS.maxMessagesPerEvent)
  @ValidateNested({ each: true })
  @Type(() => MessageDto)
  replacement!: MessageDto[];
}

/** A compaction decision as it travels on the block stream (mirrors the engine's CompactionBlock). */
export class BlockDto {
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  id!: string;

  @IsString()
  @Length(1, LIMITS.maxIdLength)
  sessionId!: string;

  @IsIn(BLOCK_STAGES)
  stage!: (typeof BLOCK_STAGES)[number];

  @ValidateNested()
  @Type(() => PositionRangeDto)
  range!: PositionRangeDto;

  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.maxMessagesPerEvent)
  @ValidateNested({ each: true })
  @Type(() => BlockEditDto)
  edits!: BlockEditDto[];

  @IsInt()
  @Min(0)
  tokensBefore!: number;

  @IsInt()
  @Min(0)
  tokensAfter!: number;

  @IsInt()
  @Min(1)
  tokensSaved!: number;

  @IsInt()
  @Min(-1)
  basedOnPosition!: number;

  @IsString()
  @Length(1, 100)
  engineVersion!: string;
}

/** `block.created` */
export class BlockCreatedData {
  @ValidateNested()
  @Type(() => BlockDto)
  block!: BlockDto;
}

/** `block.reverted` */
export class BlockRevertedData {
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  blockId!: string;

  /** The event id of the revert request that caused it, if any. */
  @IsOptional()
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  requestedBy?: string;
}
