import type { ReadModelStore } from '../read-model.store';
import type { MessageDocument } from './message.document';

/**
 * Messages of a session at positions [from, to), in order (one indexed range query). `to` is at most the
 * session document's messageCount: messages are written before their session, so that prefix is complete.
 */
export function messagesFrom(
  store: ReadModelStore,
  sessionId: string,
  from: number,
  to: number,
): Promise<MessageDocument[]> {
  if (to <= from) return Promise.resolve([]);
  return store.messages
    .find(
      { sessionId, position: { $gte: from, $lt: to } },
      { projection: { _id: 0, position: 1, message: 1, tokens: 1, tokenProfile: 1 } },
    )
    .sort({ sessionId: 1, position: 1 })
    .toArray() as Promise<MessageDocument[]>;
}
