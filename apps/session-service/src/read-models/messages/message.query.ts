import type { ReadModelStore } from '../read-model.store';
import { messageDocumentId, type MessageView } from './message.document';

/** The message at a position of the session, by `_id` (the fields a view needs). */
export function messageAt(store: ReadModelStore, sessionId: string, position: number): Promise<MessageView | null> {
  return store.messages.findOne<MessageView>(
    { _id: messageDocumentId(sessionId, position) },
    { projection: { _id: 0, position: 1, message: 1, tokens: 1, tokenProfile: 1 } },
  );
}
