import { Logger } from '@nestjs/common';
import { Registry } from 'prom-client';
import type { CompactionBlock } from '@ctxledger/context-engine';
import type { AnyEvent } from '@ctxledger/contracts';
import { isPoison } from '@ctxledger/kafka';
import { CompactionMetrics } from '../../apps/compaction-service/src/compaction/compaction.metrics';
import { CompactionService } from '../../apps/compaction-service/src/compaction/compaction.service';
import type { EventPublisher, Outgoing } from '../../apps/compaction-service/src/compaction/event-publisher';
import { SessionPauses } from '../../apps/compaction-service/src/compaction/session-pauses';
import { CompactionServiceEnv } from '../../apps/compaction-service/src/config/compaction-service.env';
import type { SummaryTimeouts } from '../../apps/compaction-service/src/compaction/summary-timeouts';

/**
 * The fault-free reference of the compaction service: the same application service in memory, fed a session
 * stream as it ended up in the log (summary results and timeouts included), emitting into an array. An event
 * the service refuses as poison is skipped, as the transport does (it dead-letters it and moves on).
 */
export async function referenceBlocks(
  events: readonly AnyEvent[],
  env: Record<string, string> = {},
): Promise<CompactionBlock[]> {
  const published: Outgoing[] = [];
  const publisher = { publish: async (out: readonly Outgoing[]) => void published.push(...out) };
  const timeouts = { start: () => undefined, clear: () => undefined, clearSession: () => undefined };
  const metrics = new CompactionMetrics(new Registry());
  // The pauses the service noted are in the log: the reference folds them (with the service's policy) and notes
  // none of its own.
  const pauses = new SessionPauses({
    DIGEST_SUMMARY_QUIET_MS: Number(env.DIGEST_SUMMARY_QUIET_MS ?? new CompactionServiceEnv().DIGEST_SUMMARY_QUIET_MS),
  });
  const service = new CompactionService(
    publisher as unknown as EventPublisher,
    timeouts as unknown as SummaryTimeouts,
    metrics,
    pauses,
    env,
  );
  Logger.overrideLogger(false); // its refusals are logged as warnings: expected, and noise in a test's output
  try {
    for (const event of events) {
      await service.handle(event, { partition: 0, replay: false }).catch((error: unknown) => {
        if (!isPoison(error)) throw error;
      });
    }
  } finally {
    pauses.onModuleDestroy();
    Logger.overrideLogger(['log', 'error', 'warn']);
  }
  return published.flatMap((o) => (o.kind === 'block.created' ? [o.block] : []));
}
