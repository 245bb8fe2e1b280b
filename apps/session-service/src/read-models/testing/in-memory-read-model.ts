import { planBlockStream, type BlockStreamPlan } from '../blocks/block-stream.projection';
import { blockDocumentId, type BlockDocument } from '../blocks/block.document';
import {
  messageDedupId,
  messageDocumentId,
  type MessageDocument,
  type MessageView,
} from '../messages/message.document';
import type { ReadModelProjection } from '../read-model.projection';
import type { ReadModelReads, SessionPage } from '../read-model.reads';
import type { SessionDocument } from '../sessions/session.document';
import { planSessionStream, type PositionedEvent, type SessionStreamPlan } from '../sessions/session-stream.projection';

/**
 * The read model in memory, with the write semantics of the MongoDB projection: insert-once documents,
 * session updates guarded on the last offset. Fast tests of the projection rules (idempotency, order), and
 * the in-memory adapter of both ports (the projector writes through ReadModelProjection, the use cases read
 * through ReadModelReads) in tests that wire the service without MongoDB.
 */
export class InMemoryReadModel implements ReadModelReads, ReadModelProjection {
  readonly sessions = new Map<string, SessionDocument>();
  readonly messages = new Map<string, MessageDocument>();
  readonly blocks = new Map<string, BlockDocument>();
  readonly blockHeads = new Map<string, number>();
  readonly poison: { stream: string; offset: number; reason: string }[] = [];

  applySessionStream(records: readonly PositionedEvent[]): SessionStreamPlan {
    const ids = new Set(records.map((r) => r.event.sessionId));
    const clientMessageOffsets = new Map<string, number>();
    for (const m of this.messages.values()) {
      const id = messageDedupId(m);
      if (!ids.has(m.sessionId) || id === undefined) continue;
      const key = `${m.sessionId}\u0000${id}`;
      clientMessageOffsets.set(key, Math.min(m.offset, clientMessageOffsets.get(key) ?? Infinity));
    }
    const sessions = new Map([...this.sessions].filter(([id]) => ids.has(id)));
    const plan = planSessionStream(records, { sessions, clientMessageOffsets });
    for (const doc of plan.messages) if (!this.messages.has(doc._id)) this.messages.set(doc._id, doc);
    for (const { doc, expectedOffset } of plan.sessions) {
      const stored = this.sessions.get(doc._id);
      if (stored?.lastOffset !== expectedOffset) throw new Error(`guard: ${doc._id} moved`);
      this.sessions.set(doc._id, doc);
    }
    for (const p of plan.poison) this.poison.push({ stream: 'sessionEvents', ...p });
    return plan;
  }

  applyBlockStream(records: readonly PositionedEvent[]): BlockStreamPlan & { heads: Map<string, number> } {
    const plan = planBlockStream(records, { blocks: this.blocks });
    for (const { doc, existed } of plan.blocks) {
      const stored = this.blocks.get(doc._id);
      if (!existed && !stored) this.blocks.set(doc._id, doc);
      else if (existed && stored?.active)
        this.blocks.set(doc._id, {
          ...stored,
          active: false,
          revertedOffset: doc.revertedOffset,
          revertedAt: doc.revertedAt,
        });
    }
    for (const p of plan.poison) this.poison.push({ stream: 'blocks', ...p });
    const heads = new Map<string, number>();
    for (const r of records) heads.set(r.event.sessionId, Math.max(r.offset, heads.get(r.event.sessionId) ?? -1));
    for (const [id, head] of heads) this.blockHeads.set(id, Math.max(head, this.blockHeads.get(id) ?? -1));
    return { ...plan, heads };
  }

  /** Every document, sorted by id: what two read models must agree on. */
  snapshot(): { sessions: SessionDocument[]; messages: MessageDocument[]; blocks: BlockDocument[] } {
    const sorted = <T extends { _id: string }>(m: Map<string, T>) =>
      [...m.values()].sort((a, b) => a._id.localeCompare(b._id));
    return { sessions: sorted(this.sessions), messages: sorted(this.messages), blocks: sorted(this.blocks) };
  }

  // ReadModelProjection

  projectSessionStream(records: readonly PositionedEvent[]): Promise<SessionStreamPlan> {
    return settle(() => this.applySessionStream(records));
  }

  projectBlockStream(records: readonly PositionedEvent[]): Promise<BlockStreamPlan & { heads: Map<string, number> }> {
    return settle(() => this.applyBlockStream(records));
  }

  // ReadModelReads

  session(sessionId: string): Promise<SessionDocument | null> {
    return Promise.resolve(this.sessions.get(sessionId) ?? null);
  }

  sessionsOf(tenant: string, idContains: string | undefined, offset: number, limit: number): Promise<SessionPage> {
    const all = [...this.sessions.values()]
      .filter((s) => s.tenant === tenant && (idContains === undefined || s._id.includes(idContains)))
      .sort((a, b) => (a.updatedAt !== b.updatedAt ? (a.updatedAt < b.updatedAt ? 1 : -1) : a._id < b._id ? -1 : 1));
    return Promise.resolve({ docs: all.slice(offset, offset + limit), total: all.length });
  }

  message(sessionId: string, position: number): Promise<MessageView | null> {
    const doc = this.messages.get(messageDocumentId(sessionId, position));
    if (!doc) return Promise.resolve(null);
    const { message, tokens, tokenProfile } = doc;
    return Promise.resolve({ position, message, tokens, tokenProfile });
  }

  blocksOf(sessionId: string): Promise<BlockDocument[]> {
    const docs = [...this.blocks.values()].filter((b) => b.sessionId === sessionId);
    return Promise.resolve(docs.sort((a, b) => a.createdOffset - b.createdOffset));
  }

  blockHead(sessionId: string): Promise<number> {
    return Promise.resolve(this.blockHeads.get(sessionId) ?? -1);
  }

  block(tenant: string, sessionId: string, blockId: string): Promise<BlockDocument | null> {
    const doc = this.blocks.get(blockDocumentId(sessionId, blockId));
    return Promise.resolve(doc && doc.tenant === tenant ? doc : null);
  }
}

/** The result of a synchronous step as a promise (its error as a rejection). */
function settle<T>(step: () => T): Promise<T> {
  try {
    return Promise.resolve(step());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}
