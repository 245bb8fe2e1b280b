import { Injectable } from '@nestjs/common';
import { keyPartition } from '@ctxledger/kafka';
import type { BlockDocument } from '../read-models/blocks/block.document';
import type { MessageDocument } from '../read-models/messages/message.document';
import { PartitionContiguity } from '../read-models/partition-contiguity';
import type { SessionDocument } from '../read-models/sessions/session.document';

/** The two streams the projector writes the read model from. */
export type ProjectedStream = 'sessionEvents' | 'blocks';

/** One durable batch of the session stream: its partition, first and last offset, and what it wrote. */
export interface SessionsWritten {
  readonly partition: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  /** The session documents as written. */
  readonly sessions: readonly SessionDocument[];
  /** The message documents stored, in position order. */
  readonly messages: readonly MessageDocument[];
}

/** One durable batch of the block stream: its partition, first and last offset, and per session what changed. */
export interface BlocksWritten {
  readonly partition: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  /** Per session of the batch: its new head (last offset) and the block documents the batch created or changed. */
  readonly sessions: ReadonlyMap<string, { readonly head: number; readonly docs: readonly BlockDocument[] }>;
}

/** Where a partition of a stream stands on this instance (see `ProjectionProgress.position`). */
export interface PartitionPosition {
  readonly run: number;
  readonly last: number;
  /** Every record of the partition from this offset on was handled here, in this run. */
  readonly from: number;
}

/** Whether no batch of the partition was handled between two positions (and the run did not end). */
export const samePosition = (a: PartitionPosition, b: PartitionPosition | undefined): boolean =>
  b !== undefined && a.run === b.run && a.last === b.last;

/** A stream's partitions this instance's projector consumes, and how many the topic has. */
export interface StreamAssignment {
  readonly partitions: readonly number[];
  readonly partitionCount: number;
}

/**
 * In-process news of the projector's writes: a read waiting for its own write (`after=`) wakes at once when
 * this instance projected it, and the read side's caches take what was just written instead of reading it back.
 *
 * It also tells when memory is as good as the database. While this instance's consumer owns a partition (from
 * the group's assignment until the next rebalance), nobody else writes the partition's sessions, so state kept
 * from this instance's own writes is current as long as it has handled every batch of the partition since
 * (one unbroken run, `position`). A rebalance, a gap between batches or a failed batch ends the run; and the
 * ownership itself holds only while the group has recently confirmed this member (`memberUntil`).
 */
@Injectable()
export class ProjectionProgress {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly sessionListeners: ((written: SessionsWritten, at: PartitionPosition) => void)[] = [];
  private readonly blockListeners: ((written: BlocksWritten, at: PartitionPosition) => void)[] = [];
  private readonly runs: Record<ProjectedStream, PartitionContiguity> = {
    sessionEvents: new PartitionContiguity(),
    blocks: new PartitionContiguity(),
  };
  private owned: Partial<Record<ProjectedStream, { partitions: ReadonlySet<number>; count: number }>> = {};
  /** Until when this member cannot have been expelled from the group (unbounded: nothing says otherwise). */
  private memberConfirmedUntil = Infinity;

  /** Called with every durable session-stream batch of this instance's projector (before the waiters wake). */
  onSessionsWritten(listener: (written: SessionsWritten, at: PartitionPosition) => void): void {
    this.sessionListeners.push(listener);
  }

  /** Called with every durable block-stream batch of this instance's projector (before the waiters wake). */
  onBlocksWritten(listener: (written: BlocksWritten, at: PartitionPosition) => void): void {
    this.blockListeners.push(listener);
  }

  /**
   * The consumer's partitions after a (re)join of the group; `{}` when it may have lost them (a rebalance
   * began, the consumer stopped or crashed). Every run ends: another instance may have written meanwhile.
   */
  assigned(streams: Partial<Record<ProjectedStream, StreamAssignment>>): void {
    this.owned = {};
    for (const [stream, a] of Object.entries(streams) as [ProjectedStream, StreamAssignment][]) {
      if (a.partitionCount > 0) this.owned[stream] = { partitions: new Set(a.partitions), count: a.partitionCount };
    }
    for (const runs of Object.values(this.runs)) runs.forget();
  }

  /** The group confirmed this member: it cannot have lost its partitions before `holdsUntil` (epoch ms). */
  memberUntil(holdsUntil: number): void {
    this.memberConfirmedUntil = holdsUntil;
  }

  /** A batch of the partition failed: what it wrote before failing is not known here, so its run ends. */
  failed(stream: ProjectedStream, partition: number): void {
    this.runs[stream].forget([partition]);
  }

  /**
   * Where the session's partition of the stream stands, when this instance owns it and has handled a batch
   * of it since it was assigned: state kept at an equal position is current (undefined: read the database).
   */
  position(stream: ProjectedStream, sessionId: string): PartitionPosition | undefined {
    const owned = this.owned[stream];
    if (!owned || Date.now() > this.memberConfirmedUntil) return undefined;
    const partition = keyPartition('', sessionId, owned.count);
    return owned.partitions.has(partition) ? this.runs[stream].position(partition) : undefined;
  }

  /** After a durable session-stream batch: listeners first, then the waiters of its sessions. */
  sessionsProjected(written: SessionsWritten): void {
    const at = this.handled('sessionEvents', written);
    for (const listener of this.sessionListeners) listener(written, at);
    this.wake(written.sessions.map((s) => s._id));
  }

  /** After a durable block-stream batch: listeners first, then the waiters of its sessions. */
  blocksProjected(written: BlocksWritten): void {
    const at = this.handled('blocks', written);
    for (const listener of this.blockListeners) listener(written, at);
    this.wake(written.sessions.keys());
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

  private handled(
    stream: ProjectedStream,
    written: { partition: number; firstOffset: number; lastOffset: number },
  ): PartitionPosition {
    this.runs[stream].handled(written.partition, written.firstOffset, written.lastOffset);
    return this.runs[stream].position(written.partition)!;
  }

  private wake(sessionIds: Iterable<string>): void {
    for (const id of sessionIds) {
      const set = this.waiters.get(id);
      if (!set) continue;
      this.waiters.delete(id);
      for (const wake of set) wake();
    }
  }
}
