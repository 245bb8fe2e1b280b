import {
  configure,
  counterFor,
  PolicyError,
  type ChatMessage,
  type PolicyOverrides,
  type SessionConfig,
} from '@ctxledger/context-engine';
import type { MessageAppendedData, SessionConfiguredData } from './events/session-events';

/**
 * The one mapping between the wire contracts and the engine's types, shared by every service that folds
 * a session stream (the compaction service and the session service's read side).
 */

/** `session.configured` events accumulate: a later one overrides the earlier ones field by field. */
export function mergeSessionConfig(
  previous: SessionConfiguredData | undefined,
  next: SessionConfiguredData,
): SessionConfiguredData {
  const merged: Record<string, unknown> = { ...(previous ?? {}) };
  for (const [key, value] of Object.entries(next)) if (value !== undefined) merged[key] = value;
  return merged as SessionConfiguredData;
}

/** The engine's configuration of a session; a system prompt or tool definitions given as text are counted. */
export function toEngineConfig(wire: SessionConfiguredData | undefined): SessionConfig {
  if (!wire) return {};
  const counter = counterFor({ provider: wire.provider, model: wire.model });
  const count = (text: string | undefined, tokens: number | undefined) =>
    tokens ?? (text !== undefined ? counter.text(text) : undefined);
  const config: SessionConfig = {
    provider: wire.provider,
    model: wire.model,
    contextWindow: wire.contextWindow,
    maxOutputTokens: wire.maxOutputTokens,
    systemPromptTokens: count(wire.systemPrompt, wire.systemPromptTokens),
    toolDefinitionTokens: count(wire.toolDefinitions, wire.toolDefinitionTokens),
    policy: {
      ...((wire.policy as PolicyOverrides | undefined) ?? {}),
      ...(wire.threshold !== undefined && { thresholdRatio: wire.threshold }),
    },
  };
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as SessionConfig;
}

/**
 * Why the engine cannot apply a (merged) session configuration, one `path: reason` each (`policy.targetRatio: …`);
 * empty when it applies. The one check of both paths: `PUT …/config` answers 400 with these, and a
 * `session.configured` from Kafka that fails it is dead-lettered with `refusedConfigReason` of them.
 */
export function sessionConfigViolations(wire: SessionConfiguredData): string[] {
  try {
    configure(toEngineConfig(wire));
    return [];
  } catch (error) {
    if (error instanceof PolicyError) return [...error.violations];
    return [`configuration: ${(error as Error).message}`];
  }
}

/** The dead-letter (and stats) reason of a refused `session.configured`. */
export const refusedConfigReason = (violations: readonly string[]): string =>
  `the session configuration was refused, the session keeps its earlier one: ${violations.join('; ')}`;

/** The engine's message of a `message.appended` event (the idempotency key stays outside the engine). */
export function toChatMessage(data: MessageAppendedData): ChatMessage {
  const message: ChatMessage = {
    role: data.role,
    content: data.content,
    ...(data.toolCalls !== undefined && {
      toolCalls: data.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    }),
    ...(data.toolCallId !== undefined && { toolCallId: data.toolCallId }),
    ...(data.toolName !== undefined && { toolName: data.toolName }),
    ...(data.isError !== undefined && { isError: data.isError }),
    ...(data.images !== undefined && {
      images: data.images.map((i) => ({ bytes: i.bytes, ...(i.mediaType && { mediaType: i.mediaType }) })),
    }),
  };
  return message;
}

/**
 * Numbers the messages of one session: positions 0, 1, 2, … in stream order; a `message.appended` whose
 * clientMessageId was already seen in the session is a duplicate and gets no position (the first one wins).
 * Every folder of the session stream numbers messages with this, so positions agree everywhere.
 */
export class MessageSequencer {
  private readonly seen = new Set<string>();
  private next = 0;

  /** The position of this message, or undefined for a duplicate. */
  assign(data: Pick<MessageAppendedData, 'clientMessageId'>): number | undefined {
    if (data.clientMessageId !== undefined) {
      if (this.seen.has(data.clientMessageId)) return undefined;
      this.seen.add(data.clientMessageId);
    }
    return this.next++;
  }

  get count(): number {
    return this.next;
  }
}
