import type { BlockDocument } from './blocks/block.document';
import type { MessageView } from './messages/message.document';
import type { SessionDocument } from './sessions/session.document';

/** A page of a tenant's sessions, most recently updated first. */
export interface SessionPage {
  readonly docs: SessionDocument[];
  /** How many of the tenant's sessions match, in all. */
  readonly total: number;
}

/**
 * The port the read model is read through by the use cases (the caches, commands, the inspector): lookups by
 * `_id` and the few queries they need, nothing of the driver. Adapters: MongoReadModelReads (the service),
 * InMemoryReadModel (tests).
 */
export interface ReadModelReads {
  /** The session document (of whichever tenant: the caller decides what another tenant's session means). */
  session(sessionId: string): Promise<SessionDocument | null>;
  /** The tenant's sessions whose id contains `idContains` (letters, digits and _:@-), by updatedAt desc then id. */
  sessionsOf(tenant: string, idContains: string | undefined, offset: number, limit: number): Promise<SessionPage>;
  /** The message at a position of the session. */
  message(sessionId: string, position: number): Promise<MessageView | null>;
  /** Every block document of a session (active and reverted, of every tenant), in creation order. */
  blocksOf(sessionId: string): Promise<BlockDocument[]>;
  /** The block-stream offset of the session's last projected block event (-1: none projected). */
  blockHead(sessionId: string): Promise<number>;
  /** One block of the session, if it is the tenant's. */
  block(tenant: string, sessionId: string, blockId: string): Promise<BlockDocument | null>;
}

export const READ_MODEL_READS = Symbol('ReadModelReads');
