import { SessionConfiguredData, SummarizerChoiceDto } from '@ctxledger/contracts';
import { documentModel } from '../../http/api-model';

export class SummarizerChoiceBody extends SummarizerChoiceDto {}
documentModel(SummarizerChoiceBody, {
  provider: { required: false, enum: ['offline', 'openai', 'anthropic', 'google'] },
  model: { required: false },
});

/** `PUT …/config`: later configurations override earlier ones field by field. */
export class SessionConfigDto extends SessionConfiguredData {}
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
