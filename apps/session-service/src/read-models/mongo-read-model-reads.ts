import { Injectable } from '@nestjs/common';
import type { BlockDocument } from './blocks/block.document';
import { blockHeadOf, blocksOf, findBlock } from './blocks/block.query';
import type { MessageView } from './messages/message.document';
import { messageAt } from './messages/message.query';
import type { ReadModelReads, SessionPage } from './read-model.reads';
import { ReadModelStore } from './read-model.store';
import type { SessionDocument } from './sessions/session.document';
import { sessionById, sessionsOf } from './sessions/session.query';

/** The read model's reads on MongoDB: each read model's queries (sessions/, messages/, blocks/). */
@Injectable()
export class MongoReadModelReads implements ReadModelReads {
  constructor(private readonly store: ReadModelStore) {}

  session(sessionId: string): Promise<SessionDocument | null> {
    return sessionById(this.store, sessionId);
  }

  sessionsOf(tenant: string, idContains: string | undefined, offset: number, limit: number): Promise<SessionPage> {
    return sessionsOf(this.store, tenant, idContains, offset, limit);
  }

  message(sessionId: string, position: number): Promise<MessageView | null> {
    return messageAt(this.store, sessionId, position);
  }

  blocksOf(sessionId: string): Promise<BlockDocument[]> {
    return blocksOf(this.store, sessionId);
  }

  blockHead(sessionId: string): Promise<number> {
    return blockHeadOf(this.store, sessionId);
  }

  block(tenant: string, sessionId: string, blockId: string): Promise<BlockDocument | null> {
    return findBlock(this.store, tenant, sessionId, blockId);
  }
}
