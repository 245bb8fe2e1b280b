import { Logger } from '@nestjs/common';
import type { CompactionBlock } from '@ctxledger/context-engine';
import type { AnyEvent } from '@ctxledger/contracts';
import { isPoison } from '@ctxledger/kafka';
import { inMemoryCompactionService } from '../../apps/compaction-service/src/compaction/testing/in-memory-compaction';
import { CompactionServiceEnv } from '../../apps/compaction-service/src/config/compaction-service.env';

/**
 * The fault-free reference of the compaction service: the same application service in memory, fed a session
 * stream as it ended up in the log (summary results and timeouts included), emitting into an array. An event
 * the service refuses as poison is skipped, as the transport does (it dead-letters it and moves on).
 */
export async function referenceBlocks(
  events: readonly AnyEvent[],
  env: Record<string, string> = {},
): Promise<CompactionBlock[]> {
  // The pauses the service noted are in the log: the reference folds them (with the service's policy) and notes
  // none of its own.
  const quietMs = Number(env.DIGEST_SUMMARY_QUIET_MS ?? new CompactionServiceEnv().DIGEST_SUMMARY_QUIET_MS);
  const { service, published, pauses } = inMemoryCompactionService({ env, quietMs });
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
