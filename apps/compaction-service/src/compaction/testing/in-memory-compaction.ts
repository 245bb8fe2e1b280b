import { Registry } from 'prom-client';
import { CompactionMetrics } from '../compaction.metrics';
import { CompactionService } from '../compaction.service';
import type { EventPublisher, Outgoing } from '../event-publisher';
import { SessionPauses } from '../session-pauses';
import type { SummaryTimeouts } from '../summary-timeouts';

export interface InMemoryCompactionOptions {
  /** The service's settings read from its env (DIGEST_SUMMARIES, SUMMARIZER_PROVIDER). */
  readonly env?: { readonly DIGEST_SUMMARIES?: string; readonly SUMMARIZER_PROVIDER?: string };
  /** DIGEST_SUMMARY_QUIET_MS; 0 (the default here): a note's summary is asked at each compaction. */
  readonly quietMs?: number;
  /** The first N batch sends fail as a broker that is down would. */
  readonly failSends?: number;
}

/**
 * The compaction application service with its outputs collected in memory (the Kafka side is tested in
 * test/integration): what it published in order, the size of each batch send, its metrics' registry. Summary
 * timeouts are not armed. Call `pauses.onModuleDestroy()` when a test used a quiet period.
 */
export function inMemoryCompactionService(options: InMemoryCompactionOptions = {}) {
  const published: Outgoing[] = [];
  const sends: number[] = [];
  let failures = options.failSends ?? 0;
  const publisher = {
    publish: async (out: readonly Outgoing[]) => void published.push(...out),
    publishAll: async (groups: ReadonlyArray<{ outgoing: readonly Outgoing[] }>) => {
      if (failures-- > 0) throw new Error('Kafka is down');
      const out = groups.flatMap((g) => g.outgoing);
      sends.push(out.length);
      published.push(...out);
    },
  } as unknown as EventPublisher;
  const timeouts = { start: () => undefined, clear: () => undefined, clearSession: () => undefined };
  const registry = new Registry();
  const pauses = new SessionPauses({ DIGEST_SUMMARY_QUIET_MS: options.quietMs ?? 0 });
  const service = new CompactionService(
    publisher,
    timeouts as unknown as SummaryTimeouts,
    new CompactionMetrics(registry),
    pauses,
    options.env,
  );
  return { service, published, sends, pauses, registry };
}
