import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { LIMITS, SUMMARIZER_PROVIDERS, type SessionConfiguredData, type SummarizerChoice } from '@ctxledger/contracts';
import { documentModel } from '../../http/api-model';

/*
 * The HTTP body of the `session.configured` contract, checked with class-validator as Nest users expect. The rules
 * are the event schema's (libs/contracts/src/events/session-events.ts) restated as decorators: dto-contract.spec.ts
 * keeps the two in step.
 */

export class SummarizerChoiceBody implements SummarizerChoice {
  @IsOptional()
  @IsIn(SUMMARIZER_PROVIDERS)
  provider?: (typeof SUMMARIZER_PROVIDERS)[number];

  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.maxNameLength)
  model?: string;
}
documentModel(SummarizerChoiceBody, {
  provider: { required: false, enum: ['offline', 'openai', 'anthropic', 'google'] },
  model: { required: false },
});

/** `PUT …/config`: later configurations override earlier ones field by field. */
export class SessionConfigDto implements SessionConfiguredData {
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
  @Type(() => SummarizerChoiceBody)
  summarizer?: SummarizerChoiceBody;
}
documentModel(SessionConfigDto, {
  provider: { required: false, example: 'anthropic' },
  model: { required: false, example: 'claude-sonnet-4-5' },
  contextWindow: { required: false, minimum: 256, description: 'Overrides the model registry' },
  maxOutputTokens: { required: false, minimum: 1 },
  threshold: {
    required: false,
    minimum: 0.05,
    maximum: 1,
    description:
      'Compact above this share of the history budget (default 0.8), down to policy.targetRatio if given (not above ' +
      'the threshold), else 0.6, or 0.75 × the threshold for a threshold below 0.6',
  },
  systemPrompt: { required: false, description: 'Counted in the budget (never stored in the history)' },
  systemPromptTokens: { required: false, minimum: 0, description: 'Or only the system prompt size' },
  toolDefinitions: { required: false, description: 'The tool definitions as sent to the provider (JSON text)' },
  toolDefinitionTokens: { required: false, minimum: 0 },
  policy: {
    required: false,
    type: Object,
    additionalProperties: true,
    description:
      "Overrides of the engine's compaction policy (thresholdRatio, targetRatio, summaries, stages, tail, …); an " +
      'unknown setting, a wrong type or a target above the threshold is refused: 400 `policy.<setting>: <reason>`',
  },
  summarizer: { required: false, type: () => SummarizerChoiceBody },
});
