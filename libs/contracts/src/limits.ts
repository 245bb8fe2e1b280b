/**
 * Explicit size limits of what enters the system. An event over a limit is refused (HTTP 400) or
 * dead-lettered (Kafka) with a reason naming the limit; nothing is silently cut.
 */
export const LIMITS = {
  /** One Kafka record (the broker's default max.message.bytes is ~1 MiB). */
  maxEventBytes: 1_000_000,
  /** Text of one message (a tool output included). Larger outputs must be cut by the agent. */
  maxContentChars: 400_000,
  /** JSON-encoded arguments of one tool call. */
  maxToolArgumentsChars: 200_000,
  maxToolCallsPerMessage: 128,
  maxImagesPerMessage: 32,
  maxIdLength: 200,
  maxNameLength: 200,
  maxErrorTextChars: 20_000,
  maxSystemPromptChars: 400_000,
  maxToolDefinitionsChars: 400_000,
  /** Messages in one HTTP batch append. */
  maxBatchMessages: 500,
  /** Replacement messages of one block, messages of one summary request. */
  maxMessagesPerEvent: 20_000,
  maxSummaryChars: 100_000,
  /** Nesting of arrays and objects in one event or HTTP body (real ones nest under 10 levels). */
  maxJsonDepth: 64,
} as const;

/** Ids: session ids, client message ids, tool call ids. No operators, no dots, no spaces. */
export const ID_PATTERN = /^[A-Za-z0-9_:@-]+$/;
