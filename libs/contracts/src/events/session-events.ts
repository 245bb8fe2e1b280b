import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../limits';
import { AnyObject, IdWith, StringEnum } from '../schema/builders';
import { MESSAGE_PROPERTIES, MESSAGE_RULES } from './message';

/** `message.appended`: one conversation message, flat (role, content, toolCalls… at the top of `data`). */
export const MessageAppendedData = Type.Object(
  {
    ...MESSAGE_PROPERTIES,
    /** Makes the append idempotent: a second event with the same id in the session is ignored. */
    clientMessageId: Type.Optional(
      IdWith({ description: 'Idempotency: a second append with the same id in the session is ignored.' }),
    ),
  },
  { title: 'MessageAppendedData', ...MESSAGE_RULES },
);
export type MessageAppendedData = Static<typeof MessageAppendedData>;

export const SUMMARIZER_PROVIDERS = ['offline', 'openai', 'anthropic', 'google'] as const;

export const SummarizerChoice = Type.Object(
  {
    provider: Type.Optional(StringEnum(SUMMARIZER_PROVIDERS)),
    model: Type.Optional(Type.String({ maxLength: LIMITS.maxNameLength })),
  },
  { title: 'SummarizerChoice' },
);
export type SummarizerChoice = Static<typeof SummarizerChoice>;

/** `session.configured`: the model and budget of a session; later events override earlier ones field by field. */
export const SessionConfiguredData = Type.Object(
  {
    provider: Type.Optional(
      Type.String({
        maxLength: LIMITS.maxNameLength,
        description: 'openai, anthropic, google-ai, vertex, bedrock, azure, mistral, ollama, …',
      }),
    ),
    model: Type.Optional(Type.String({ maxLength: LIMITS.maxNameLength })),
    contextWindow: Type.Optional(
      Type.Integer({ minimum: 256, maximum: 100_000_000, description: "Overrides the registry's window." }),
    ),
    maxOutputTokens: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10_000_000, description: 'The output reserve.' }),
    ),
    threshold: Type.Optional(
      Type.Number({
        minimum: 0.05,
        maximum: 1,
        description:
          'Compact when the history passes this share of the history budget (default 0.8). Compaction brings it down\n' +
          'to the target: `policy.targetRatio` if given (it must not be above the threshold), else 0.6, or 0.75 ×\n' +
          'the threshold for a threshold below 0.6 (0.3 → 0.225). Sets `policy.thresholdRatio`.\n',
      }),
    ),
    /** The system prompt's text (counted, never stored in the history) or only its size in tokens. */
    systemPrompt: Type.Optional(Type.String({ maxLength: LIMITS.maxSystemPromptChars })),
    systemPromptTokens: Type.Optional(Type.Integer({ minimum: 0 })),
    /** The tool definitions as sent to the provider (JSON text), or only their size in tokens. */
    toolDefinitions: Type.Optional(Type.String({ maxLength: LIMITS.maxToolDefinitionsChars })),
    toolDefinitionTokens: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Overrides of the engine's compaction policy (checked by the engine when applied). */
    policy: Type.Optional(
      AnyObject({
        description:
          "Overrides of the engine's compaction policy (libs/context-engine/src/model/policy.ts: thresholdRatio,\n" +
          'targetRatio, summaries on/off, stages, tail, truncate, prune, guard, …). Checked when the configuration is\n' +
          "applied, merged over the session's earlier ones: an unknown setting, a value of the wrong type, a share\n" +
          'outside [0, 1] or a target above the threshold refuses the whole event — `PUT …/config` answers 400 with\n' +
          '`policy.<setting>: <reason>`, a record on Kafka is dead-lettered with the same text — and the session\n' +
          'keeps its earlier configuration (GET …/stats shows it, and the refused one with its reason).\n',
      }),
    ),
    summarizer: Type.Optional(SummarizerChoice),
  },
  { title: 'SessionConfiguredData' },
);
export type SessionConfiguredData = Static<typeof SessionConfiguredData>;

/**
 * `compaction.requested`: a manual compaction, an overflow report carrying the provider's error text, or `pause`:
 * the compaction service noting that a session went quiet (it then asks a model summary of a note; in the log so
 * that a replay asks the same).
 */
export const CompactionRequestedData = Type.Object(
  {
    trigger: StringEnum(['manual', 'overflow', 'pause'], {
      description:
        'pause: written by the compaction service when a session went quiet (it then asks a model summary of a note).',
    }),
    errorText: Type.Optional(
      Type.String({
        maxLength: LIMITS.maxErrorTextChars,
        description: "The provider's overflow error, for trigger overflow.",
      }),
    ),
  },
  { title: 'CompactionRequestedData' },
);
export type CompactionRequestedData = Static<typeof CompactionRequestedData>;

/** `block-revert.requested`: show again what a block hid. */
export const BlockRevertRequestedData = Type.Object(
  { blockId: Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength }) },
  { title: 'BlockRevertRequestedData' },
);
export type BlockRevertRequestedData = Static<typeof BlockRevertRequestedData>;
