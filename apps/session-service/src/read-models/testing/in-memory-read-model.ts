import { planBlockStream } from '../blocks/block-stream.projection';
import type { BlockDocument } from '../blocks/block.document';
import { messageDedupId, type MessageDocument } from '../messages/message.document';
import type { SessionDocument } from '../sessions/session.document';
import { planSessionStream, type PositionedEvent } from '../sessions/session-stream.projection';

/**
 * The read model in memory, with the write semantics of the MongoDB projection: insert-once documents,
 * session updates guarded on the last offset. Fast tests of the projection rules (idempotency, order).
 */
export class InMemoryReadModel {
  readonly sessions = new Map<string, SessionDocument>();
  readonly messages = new Map<string, MessageDocument>();
  readonly blocks = new Map<string, BlockDocument>();
  readonly poison: { stream: string; offset: number; reason: string }[] = [];

  projectSessionStream(records: readonly PositionedEvent[]): void {
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
  }

  projectBlockStream(records: readonly PositionedEvent[]): void {
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
  }

  /** Every document, sorted by id: what two read models must agree on. */
  snapshot(): { sessions: SessionDocument[]; messages: MessageDocument[]; blocks: BlockDocument[] } {
    const sorted = <T extends { _id: string }>(m: Map<string, T>) =>
      [...m.values()].sort((a, b) => a._id.localeCompare(b._id));
    return { sessions: sorted(this.sessions), messages: sorted(this.messages), blocks: sorted(this.blocks) };
  }
}
