import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { SERVICE_ENV } from '@ctxledger/platform';
import type { CompactionServiceEnv } from '../config/compaction-service.env';

/**
 * Notices when a session goes quiet: `DIGEST_SUMMARY_QUIET_MS` without a new message. The compaction service
 * watches a session after a compaction (or a note's summary answered) and, once it is quiet, writes the pause to
 * the session stream; consuming it, the engine asks a model summary of the largest note the session shows (policy
 * `digestSummaries: 'pause'`). Through the log, so that a replay asks the same and the answer lands on the same
 * state.
 *
 * Why wait: while an agent keeps appending, each compaction condenses again and its new note absorbs the last one.
 * A summary asked at once would mostly come back for a note no longer shown, and a model answering one request at a
 * time would work through all of those before the newest.
 */
@Injectable()
export class SessionPauses implements OnModuleDestroy {
  private readonly waits = new Map<string, { timer: NodeJS.Timeout; onQuiet: () => void }>();
  /** 0: no pauses (the engine asks at each compaction instead). */
  readonly quietMs: number;

  constructor(@Inject(SERVICE_ENV) env: Pick<CompactionServiceEnv, 'DIGEST_SUMMARY_QUIET_MS'>) {
    this.quietMs = env.DIGEST_SUMMARY_QUIET_MS;
  }

  /** Calls `onQuiet` once the session has had no message for the quiet period; a new call starts the wait over. */
  watch(sessionId: string, onQuiet: () => void): void {
    if (this.quietMs <= 0) return;
    clearTimeout(this.waits.get(sessionId)?.timer);
    const timer = setTimeout(() => {
      this.waits.delete(sessionId);
      onQuiet();
    }, this.quietMs);
    timer.unref();
    this.waits.set(sessionId, { timer, onQuiet });
  }

  /** A message: a wait under way for the session starts over (none is started). */
  touch(sessionId: string): void {
    const wait = this.waits.get(sessionId);
    if (wait) this.watch(sessionId, wait.onQuiet);
  }

  /** Whether a wait is under way for the session. */
  watching(sessionId: string): boolean {
    return this.waits.has(sessionId);
  }

  /** Stops watching these sessions (their partition moved away, or the service stops). */
  forget(sessionIds: Iterable<string>): void {
    for (const id of [...sessionIds]) {
      clearTimeout(this.waits.get(id)?.timer);
      this.waits.delete(id);
    }
  }

  onModuleDestroy(): void {
    this.forget(this.waits.keys());
  }
}
