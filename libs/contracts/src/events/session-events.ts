import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { ID_PATTERN, LIMITS } from '../limits';
import { MessageDto } from './message.dto';

/** `message.appended`: one conversation message, flat (role, content, toolCalls… at the top of `data`). */
export class MessageAppendedData extends MessageDto {
  /** Makes the append idempotent: a second event with the same id in the session is ignored. */
  @IsOptional()
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  @Matches(ID_PATTERN, { message: 'may contain only letters, digits and _:@-' })
  clientMessageId?: string;
}

export class SummarizerChoiceDto {
  @IsOptional()
  @IsIn(['offline', 'openai', 'anthropic', 'google'])
  provider?: 'offline' | 'openai' | 'anthropic' | 'google';

  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.maxNameLength)
  model?: string;
}

/** `session.configured`: the model and budget of a session; later events override earlier ones field by field. */
export class SessionConfiguredData {
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.maxNameLength)
  provider?: string;

  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.maxNameLength)
  model?: string;

  @IsOptional()
  @IsInt()
  @Min(256)
  @Max(100_000_000)
  contextWindow?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  maxOutputTokens?: number;

  @IsOptional()
  @IsNumber()
  @Min(0.05)
  @Max(1)
  threshold?: number;

  /** The system prompt's text (counted, never stored in the history) or only its size in tokens. */
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.maxSystemPromptChars)
  systemPrompt?: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  systemPromptTokens?: number;

  /** The tool definitions as sent to the provider (JSON text), or only their size in tokens. */
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.maxToolDefinitionsChars)
  toolDefinitions?: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  toolDefinitionTokens?: number;

  /** Overrides of the engine's compaction policy (checked by the engine when applied). */
  @IsOptional()
  @IsObject()
  policy?: Record<string, unknown>;

  @IsOptional()
  @ValidateNested()
  @Type(() => SummarizerChoiceDto)
  summarizer?: SummarizerChoiceDto;
}

/**
 * `compaction.requested`: a manual compaction, an overflow report carrying the provider's error text, or `pause`:
 * the compaction service noting that a session went quiet (it then asks a model summary of a note; in the log so
 * that a replay asks the same).
 */
export class CompactionRequestedData {
  @IsIn(['manual', 'overflow', 'pause'])
  trigger!: 'manual' | 'overflow' | 'pause';

  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.maxErrorTextChars)
  errorText?: string;
}

/** `block-revert.requested`: show again what a block hid. */
export class BlockRevertRequestedData {
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  blockId!: string;
}
