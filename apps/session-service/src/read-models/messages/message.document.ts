import type { ChatMessage } from '@ctxledger/context-engine';

/**
 * One original message of a session at its position. Immutable once written. `_id` is
 * `<sessionId>/<position>` ('/' is not allowed in ids, so it cannot be ambiguous).
 */
export interface MessageDocument {
  readonly _id: string;
  readonly sessionId: string;
  readonly tenant: string;
  readonly position: number;
  readonly message: ChatMessage;
  /** Estimated tokens of the message under `tokenProfile` (recounted on read if the session's provider changed). */
  readonly tokens: number;
  readonly tokenProfile: string;
  readonly clientMessageId?: string;
  /** Event id of the `message.appended` event (a message without a clientMessageId is deduplicated on it). */
  readonly eventId?: string;
  /** Session-stream offset of the `message.appended` event. */
  readonly offset: number;
  readonly time: string;
}

/** What a read needs of a message document. */
export type MessageView = Pick<MessageDocument, 'position' | 'message' | 'tokens' | 'tokenProfile'>;

export const messageDocumentId = (sessionId: string, position: number): string => `${sessionId}/${position}`;

/**
 * What identifies a message in its session for deduplication: its clientMessageId, or, without one, its event
 * id (the same event published twice). `\u0001` keeps the two apart (an id of the ID_PATTERN never has it).
 */
export const messageDedupId = (m: { clientMessageId?: string; eventId?: string }): string | undefined =>
  m.clientMessageId ?? (m.eventId === undefined ? undefined : `\u0001${m.eventId}`);
