import { Injectable } from '@nestjs/common';
import { messagesFrom } from '../read-models/messages/message.query';
import type { MessageDocument } from '../read-models/messages/message.document';
import { ReadModelStore } from '../read-models/read-model.store';

/** Messages kept in memory at most (all sessions together); least recently read sessions go first. */
const MAX_CACHED_MESSAGES = 200_000;

/**
 * A session's messages are immutable by position (insert-once), so a prefix once read stays true: reads keep
 * it in memory and fetch only the positions projected since. A GET then costs the session and blocks
 * lookups, not the whole history. (On FerretDB v1, which pushes no filter on secondary fields down to
 * SQLite, reading 1,000 message documents takes ~150 ms; from here it takes none.)
 */
@Injectable()
export class MessageCache {
  private readonly sessions = new Map<string, MessageDocument[]>();
  private total = 0;

  constructor(private readonly store: ReadModelStore) {}

  async messages(sessionId: string, count: number): Promise<readonly MessageDocument[]> {
    let cached = this.sessions.get(sessionId) ?? [];
    this.sessions.delete(sessionId); // re-inserted below: Map order is the LRU order
    if (cached.length < count) {
      const more = await messagesFrom(this.store, sessionId, cached.length, count);
      if (more.length !== count - cached.length || more.some((m, i) => m.position !== cached.length + i)) {
        throw new Error(`session ${sessionId}: positions ${cached.length}..${count - 1} are not all stored`);
      }
      this.total += more.length;
      cached = cached.concat(more);
    }
    this.sessions.set(sessionId, cached);
    for (const [id, docs] of this.sessions) {
      if (this.total <= MAX_CACHED_MESSAGES || id === sessionId) break;
      this.sessions.delete(id);
      this.total -= docs.length;
    }
    return cached.length === count ? cached : cached.slice(0, count);
  }
}
