import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ProjectionProgress, type BlocksWritten, type PartitionPosition } from '../../projector/projection-progress';
import type { BlockDocument } from './block.document';
import { READ_MODEL_READS, type ReadModelReads } from '../read-model.reads';

/** Block documents kept in memory at most (all sessions together); least recently read sessions go first. */
const MAX_CACHED_BLOCKS = 100_000;

interface Entry {
  /** Block-stream offset of the session's last block event these documents include (-1: none). */
  head: number;
  /** Every tenant's documents of the session, by creation offset. */
  docs: BlockDocument[];
  /** The run of the session's block partition the entry is current in (`ProjectionProgress.position`). */
  run?: number;
}

/**
 * A session's blocks as last known, with the block head (the offset of its last projected block event) they
 * are current at. A read checks the stored head with one `_id` lookup and reads the blocks again only when
 * the head moved past the entry. The head is read before the blocks and written after them, so an entry is
 * never older than its head. (FerretDB v1 answers the blocks query by scanning every block document of every
 * session: ~0.1 s with a few thousand blocks stored.)
 *
 * The projector of this instance hands over each block-stream batch it wrote; a batch moves an entry forward
 * without a read when nothing of the session can be missing in between: this instance has projected every
 * record of the partition since the entry's head (`PartitionPosition.from`). While this instance owns the
 * partition and its run is unbroken since the entry was current (`ProjectionProgress.position`), the entry is
 * answered without looking the head up.
 */
@Injectable()
export class BlockCache {
  /** By session, sized by their block documents; least recently read sessions go first. */
  private readonly sessions = new LRUCache<string, Entry>({
    maxSize: MAX_CACHED_BLOCKS,
    sizeCalculation: (entry) => Math.max(1, entry.docs.length),
  });
  /** Reads in flight: a batch handed over meanwhile marks them, and what they read is then not kept. */
  private readonly reading = new Map<string, Set<{ offered: boolean }>>();
  /** Reads in flight by session, shared by concurrent readers that need no later head. */
  private readonly loading = new Map<string, { head: number; promise: Promise<{ entry: Entry; kept: boolean }> }>();

  constructor(
    @Inject(READ_MODEL_READS) private readonly reads: ReadModelReads,
    private readonly progress: ProjectionProgress,
  ) {
    progress.onBlocksWritten((written, at) => this.offer(written, at));
  }

  /** The tenant's blocks of the session, and the head they are current at (NaN: not kept, do not key on it). */
  async blocks(tenant: string, sessionId: string): Promise<{ head: number; docs: readonly BlockDocument[] }> {
    const before = this.progress.position('blocks', sessionId);
    const cached = this.sessions.get(sessionId);
    if (cached && before && cached.run === before.run) {
      return { head: cached.head, docs: cached.docs.filter((d) => d.tenant === tenant) };
    }
    const head = await this.reads.blockHead(sessionId);
    const current = this.sessions.get(sessionId); // a batch handed over meanwhile may have moved it
    const { entry, kept } =
      current && current.head >= head ? { entry: current, kept: true } : await this.load(sessionId, head);
    // What was read is current in the run of `before`: a batch of the session handed over during the reads
    // either moved the entry (and the head check saw it) or made `load` not keep what it read.
    if (kept && before) entry.run = before.run;
    return { head: kept ? entry.head : NaN, docs: entry.docs.filter((d) => d.tenant === tenant) };
  }

  /**
   * Reads the session's blocks at `head` or later. Concurrent reads of one session share one query; with no
   * block event projected (head -1) there is nothing to read. What was read while a batch of the session was
   * handed over may miss that batch: it is returned, not kept.
   */
  private load(sessionId: string, head: number): Promise<{ entry: Entry; kept: boolean }> {
    const inflight = this.loading.get(sessionId);
    if (inflight && inflight.head >= head) return inflight.promise;
    const reading = { offered: false };
    const readers = this.reading.get(sessionId) ?? new Set();
    this.reading.set(sessionId, readers.add(reading));
    const promise = (async () => {
      try {
        const docs = head < 0 ? [] : await this.reads.blocksOf(sessionId);
        const now = this.sessions.peek(sessionId); // a batch may have moved it further meanwhile
        if (now && now.head > head) return { entry: now, kept: true };
        if (reading.offered) return { entry: { head, docs }, kept: false };
        const entry = { head, docs };
        this.sessions.set(sessionId, entry);
        return { entry, kept: true };
      } finally {
        readers.delete(reading);
        if (readers.size === 0 && this.reading.get(sessionId) === readers) this.reading.delete(sessionId);
      }
    })();
    this.loading.set(sessionId, { head, promise });
    const settled = () => {
      if (this.loading.get(sessionId)?.promise === promise) this.loading.delete(sessionId);
    };
    promise.then(settled, settled);
    return promise;
  }

  private offer(written: BlocksWritten, at: PartitionPosition): void {
    for (const [sessionId, change] of written.sessions) {
      for (const reading of this.reading.get(sessionId) ?? []) reading.offered = true;
      const entry = this.sessions.peek(sessionId);
      if (!entry || entry.head >= change.head) continue;
      if (entry.head + 1 < at.from) {
        this.sessions.delete(sessionId); // something in between may be missing: read it again
        continue;
      }
      const docs = entry.docs.slice(); // readers may hold the old array
      for (const doc of change.docs) {
        const at = docs.findIndex((d) => d._id === doc._id);
        if (at < 0) docs.push(doc);
        // The same creation (a revert): replace. Another one is a duplicate id the insert-once refused.
        else if (docs[at]!.createdOffset === doc.createdOffset) docs[at] = doc;
      }
      docs.sort((a, b) => a.createdOffset - b.createdOffset);
      this.sessions.set(sessionId, { head: change.head, docs, run: at.run });
    }
  }
}
