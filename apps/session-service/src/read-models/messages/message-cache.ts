import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ProjectionProgress } from '../../projector/projection-progress';
import type { MessageDocument, MessageView } from './message.document';
import { READ_MODEL_READS, type ReadModelReads } from '../read-model.reads';

/** Messages kept in memory at most (all sessions together); least recently read sessions go first. */
const MAX_CACHED_MESSAGES = 200_000;
/**
 * Missing positions are read by `_id`, this many lookups in flight: FerretDB v1 answers the range query by
 * scanning every message document of every session, which costs more than one lookup per message as soon as
 * the database holds more than the session (a first read of 20 messages with 10,000 stored: one scan of 14 MB).
 */
const LOOKUPS_IN_FLIGHT = 16;

/**
 * A session's messages are immutable by position (insert-once), so a prefix once read stays true: reads keep
 * it in memory and fetch only the positions projected since. The projector of this instance hands over what
 * it writes, so a session it projects is never read back; missing positions (a first read, or another instance
 * projected them) are read by `_id`.
 */
@Injectable()
export class MessageCache {
  /** By session: its messages from position 0 on (sized by their number). */
  private readonly sessions = new LRUCache<string, MessageView[]>({
    maxSize: MAX_CACHED_MESSAGES,
    sizeCalculation: (messages) => Math.max(1, messages.length),
  });

  constructor(
    @Inject(READ_MODEL_READS) private readonly reads: ReadModelReads,
    progress: ProjectionProgress,
  ) {
    progress.onSessionsWritten((written) => this.offer(written.messages));
  }

  async messages(sessionId: string, count: number): Promise<readonly MessageView[]> {
    let cached = this.sessions.get(sessionId) ?? [];
    if (cached.length < count) {
      // Out of the cache while the read goes on: the projector must not append to it meanwhile.
      this.sessions.delete(sessionId);
      const more = await this.read(sessionId, cached.length, count);
      if (more.length !== count - cached.length || more.some((m, i) => m.position !== cached.length + i)) {
        throw new Error(`session ${sessionId}: positions ${cached.length}..${count - 1} are not all stored`);
      }
      // Another read may have put a longer one back meanwhile: keep the longer one.
      const now = this.sessions.peek(sessionId);
      cached = now && now.length > cached.length ? now : cached.concat(more);
    }
    // Kept (also empty: the projector's next messages of the session then need no read).
    this.sessions.set(sessionId, cached);
    return cached.slice(0, count); // a copy: the projector may append to the entry while the read goes on
  }

  /** Messages the projector just stored: appended to the sessions they continue (read sessions only). */
  private offer(written: readonly MessageDocument[]): void {
    const grown = new Set<string>();
    for (const m of written) {
      const cached = this.sessions.peek(m.sessionId);
      if (cached?.length !== m.position) continue;
      cached.push({ position: m.position, message: m.message, tokens: m.tokens, tokenProfile: m.tokenProfile });
      grown.add(m.sessionId);
    }
    for (const sessionId of grown) this.sessions.set(sessionId, this.sessions.peek(sessionId)!); // sized again
  }

  private async read(sessionId: string, from: number, to: number): Promise<MessageView[]> {
    const out: MessageView[] = [];
    for (let at = from; at < to; at += LOOKUPS_IN_FLIGHT) {
      const docs = await Promise.all(
        Array.from({ length: Math.min(LOOKUPS_IN_FLIGHT, to - at) }, (_, i) => this.reads.message(sessionId, at + i)),
      );
      for (const d of docs) if (d) out.push(d); // a missing one fails the caller's check
      if (docs.some((d) => d === null)) break;
    }
    return out;
  }
}
