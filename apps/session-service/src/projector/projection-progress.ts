import { Injectable } from '@nestjs/common';

/**
 * In-process news of the projector's writes, so a read waiting for its own write (`after=`) wakes at once
 * when this instance projected it. Reads still poll the database: the session's partition may be projected
 * by another instance.
 */
@Injectable()
export class ProjectionProgress {
  private readonly waiters = new Map<string, Set<() => void>>();

  projected(sessionIds: Iterable<string>): void {
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
