import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { LIMITS } from '../limits';
import { PositionRangeDto } from './block-events';
import { MessageDto } from './message.dto';
import { SummarizerChoiceDto } from './session-events';

/** `summary.requested`: summarize these effective messages (merging the previous summary, if any). */
export class SummaryRequestedData {
  /** Deterministic from session and range: a redelivered request reuses the stored result. */
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  requestId!: string;

  @ValidateNested()
  @Type(() => PositionRangeDto)
  range!: PositionRangeDto;

  @ArrayMaxSize(LIMITS.maxMessagesPerEvent)
  @ValidateNested({ each: true })
  @Type(() => MessageDto)
  messages!: MessageDto[];

  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.maxSummaryChars)
  previousSummary?: string;

  /** The summary must not exceed this many tokens (and must be smaller than what it replaces). */
  @IsInt()
  @Min(1)
  maxSummaryTokens!: number;

  /**
   * `full` (the default): the sectioned summary of whole turns. `gist`: a few sentences on a range the engine has
   * already condensed deterministically (an agent's in-turn prefix); the engine appends the working-state facts
   * the gist leaves out, and the summary supersedes the deterministic note when it arrives.
   */
  @IsOptional()
  @IsIn(['full', 'gist'])
  form?: 'full' | 'gist';

  @IsOptional()
  @ValidateNested()
  @Type(() => SummarizerChoiceDto)
  summarizer?: SummarizerChoiceDto;
}

/** `summary.completed` */
export class SummaryCompletedData {
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  requestId!: string;

  @IsString()
  @Length(1, LIMITS.maxSummaryChars)
  summary!: string;

  @IsString()
  @MaxLength(LIMITS.maxNameLength)
  provider!: string;

  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.maxNameLength)
  model?: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  inputTokens?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  outputTokens?: number;
}

/** `summary.failed`: the compaction service falls back to the cheap stages. */
export class SummaryFailedData {
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  requestId!: string;

  @IsString()
  @Length(1, LIMITS.maxErrorTextChars)
  reason!: string;

  @IsBoolean()
  retryable!: boolean;
}
