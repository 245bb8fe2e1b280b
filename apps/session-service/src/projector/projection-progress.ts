import { Injectable } from '@nestjs/common';
import type { BlockDocument } from '../read-models/blocks/block.document';
import type { MessageDocument } from '../read-models/messages/message.document';

/** One durable batch of the block stream: its partition, first and last offset, and per session what changed. */
export interface BlocksWritten {
  readonly partition: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  /** Per session of the batch: its new head (last offset) and the block documents the batch created or changed. */
  readonly sessions: ReadonlyMap<string, { readonly head: number; readonly docs: readonly BlockDocument[] }>;
}

/**
 * In-process news of the projector's writes, so a read waiting for its own write (`after=`) wakes at once
 * when this instance projected it, and the read side's caches take the messages just written instead of
 * reading them back. Reads still check the database: the session's partition may be projected by another
 * instance.
 */
@Injectable()
export class ProjectionProgress {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly messageListeners: ((written: readonly MessageDocument[]) => void)[] = [];
  private readonly blockListeners: ((written: BlocksWritten) => void)[] = [];

  /** Called with the message documents of every durable projector write of this instance, in position order. */
  onMessagesWritten(listener: (written: readonly MessageDocument[]) => void): void {
    this.messageListeners.push(listener);
  }

  /** Called with every durable block-stream batch this instance projected. */
  onBlocksWritten(listener: (written: BlocksWritten) => void): void {
    this.blockListeners.push(listener);
  }

  /** After a durable block-stream write: listeners first, then the waiters of its sessions. */
  blocksProjected(written: BlocksWritten): void {
    for (const listener of this.blockListeners) listener(written);
    this.projected(written.sessions.keys());
  }

  /** After a durable write: the sessions it moved and the messages it stored (listeners first, then waiters). */
  projected(sessionIds: Iterable<string>, messages: readonly MessageDocument[] = []): void {
    if (messages.length > 0) for (const listener of this.messageListeners) listener(messages);
    for (const id of sessionIds) {
      const set = this.waiters.get(id);
      if (!set) continue;
      this.waiters.delete(id);
      for (const wake of set) wake();
    }
  }

  /** Resolves on the next projection of the session, or after `ms`. */
  next(sessionId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(sessionId) ?? new Set();
      this.waiters.set(sessionId, set);
      const wake = () => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0 && this.waiters.get(sessionId) === set) this.waiters.delete(sessionId);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      set.add(wake);
    });
  }
}
