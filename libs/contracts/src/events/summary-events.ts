import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../limits';
import { StringEnum } from '../schema/builders';
import { PositionRange } from './block-events';
import { Message } from './message';
import { SummarizerChoice } from './session-events';

/** `summary.requested`: summarize these effective messages (merging the previous summary, if any). */
export const SummaryRequestedData = Type.Object(
  {
    /** Deterministic from session and range: a redelivered request reuses the stored result. */
    requestId: Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength }),
    range: PositionRange,
    messages: Type.Array(Message, { maxItems: LIMITS.maxMessagesPerEvent }),
    previousSummary: Type.Optional(Type.String({ maxLength: LIMITS.maxSummaryChars })),
    /** The summary must not exceed this many tokens (and must be smaller than what it replaces). */
    maxSummaryTokens: Type.Integer({ minimum: 1 }),
    form: Type.Optional(
      StringEnum(['full', 'gist'], {
        description:
          "full (default): the sectioned summary of whole turns. gist: a few sentences on a range the engine already condensed deterministically (an agent's in-turn prefix); the engine appends the working-state facts the gist leaves out and supersedes the note with it.",
      }),
    ),
    summarizer: Type.Optional(SummarizerChoice),
  },
  { title: 'SummaryRequestedData' },
);
export type SummaryRequestedData = Static<typeof SummaryRequestedData>;

/** `summary.completed` */
export const SummaryCompletedData = Type.Object(
  {
    requestId: Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength }),
    summary: Type.String({ minLength: 1, maxLength: LIMITS.maxSummaryChars }),
    provider: Type.String({ maxLength: LIMITS.maxNameLength }),
    model: Type.Optional(Type.String({ maxLength: LIMITS.maxNameLength })),
    inputTokens: Type.Optional(Type.Integer({ minimum: 0 })),
    outputTokens: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { title: 'SummaryCompletedData' },
);
export type SummaryCompletedData = Static<typeof SummaryCompletedData>;

/** `summary.failed`: the compaction service falls back to the cheap stages. */
export const SummaryFailedData = Type.Object(
  {
    requestId: Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength }),
    reason: Type.String({ minLength: 1, maxLength: LIMITS.maxErrorTextChars }),
    retryable: Type.Boolean(),
  },
  { title: 'SummaryFailedData' },
);
export type SummaryFailedData = Static<typeof SummaryFailedData>;
