import type { ReadModelStore } from '../read-model.store';
import type { MessageDocument } from './message.document';

/**
 * The first `count` messages of a session, by position (one indexed range query). `count` is the session
 * document's messageCount: messages are written before their session, so this is a consistent prefix.
 */
export function messagesOf(store: ReadModelStore, sessionId: string, count: number): Promise<MessageDocument[]> {
  if (count === 0) return Promise.resolve([]);
  return store.messages
    .find(
      { sessionId, position: { $lt: count } },
      { projection: { _id: 0, position: 1, message: 1, tokens: 1, tokenProfile: 1 } },
    )
    .sort({ sessionId: 1, position: 1 })
    .toArray() as Promise<MessageDocument[]>;
}
