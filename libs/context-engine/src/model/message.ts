/**
 * The conversation message as the engine sees it: provider-neutral, OpenAI-wire style tool calls
 * (arguments as a JSON string), the shape of `../shared/data/README.md`'s transcripts.
 */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface ToolCall {
  /** Unique within the session; a tool message answers it through `toolCallId`. */
  readonly id: string;
  readonly name: string;
  /** The call's input encoded as a JSON string (may be any string; it is not required to parse). */
  readonly arguments: string;
}

/** An image attached to a message; only its size matters to the engine (seed 003's clamp). */
export interface ImageRef {
  /** Decoded byte length of the image. */
  readonly bytes: number;
  readonly mediaType?: string;
}

export interface ChatMessage {
  readonly role: Role;
  readonly content: string;
  /** Only on assistant messages. */
  readonly toolCalls?: readonly ToolCall[];
  /** Only on tool messages: the id of the call this answers. */
  readonly toolCallId?: string;
  /** Only on tool messages. */
  readonly toolName?: string;
  /** Whether a tool result reports a failure (failed reads are never deduplicated). */
  readonly isError?: boolean;
  readonly images?: readonly ImageRef[];
}

export const isToolResult = (m: ChatMessage): boolean => m.role === 'tool';
export const hasToolCalls = (m: ChatMessage): boolean => m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0;
/** A "conversational" message in seed 001's sense: user text, or assistant text without tool calls. */
export const isConversational = (m: ChatMessage): boolean =>
  m.role === 'user' || (m.role === 'assistant' && !hasToolCalls(m));
