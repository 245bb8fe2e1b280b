import { toChatMessage, type EventEnvelope } from '@ctxledger/contracts';
import type { TokenCounter } from '@ctxledger/context-engine';
import { messageDocumentId, type MessageDocument } from './message.document';

/**
 * The pure projection of a positioned `message.appended` event: a message document is written once and
 * never changes, so an existing one is kept as it is (a redelivery changes nothing).
 */
export function evolveMessage(
  doc: MessageDocument | null,
  event: EventEnvelope<'message.appended'>,
  at: { readonly position: number; readonly offset: number; readonly counter: TokenCounter },
): MessageDocument {
  if (doc) return doc;
  const message = toChatMessage(event.data);
  return {
    _id: messageDocumentId(event.sessionId, at.position),
    sessionId: event.sessionId,
    tenant: event.tenant,
    position: at.position,
    message,
    tokens: at.counter.message(message),
    tokenProfile: at.counter.profile.provider,
    ...(event.data.clientMessageId !== undefined && { clientMessageId: event.data.clientMessageId }),
    eventId: event.eventId,
    offset: at.offset,
    time: event.time,
  };
}
