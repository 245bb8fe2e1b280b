import type { AnyEvent } from '@ctxledger/contracts';
import { referenceBlocks } from '../compaction-reference';
import type { readTopic } from '../kafka-helpers';
import type { SteadyLoad } from './load';

type LogRecord = Awaited<ReturnType<typeof readTopic>>[number];

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Every message a SteadyLoad had acknowledged is in its session's full history exactly once, in order; returns how
 * many are stored. A difference is printed first with, for each acknowledged message not served, where the log holds
 * it (its key `m-<i>`, hence its clientMessageId `m-<i>:0`): "nowhere" means Kafka never got it.
 */
export async function expectAcknowledgedServed(
  sessionUrl: string,
  sessionIds: readonly string[],
  load: SteadyLoad,
  log: readonly LogRecord[],
): Promise<number> {
  let stored = 0;
  for (const id of sessionIds) {
    const res = await fetch(`${sessionUrl}/v1/sessions/${id}/history?view=full`);
    const served = ((await res.json()) as { messages: unknown[] }).messages;
    const acked = load.acked.get(id)!;
    if (!same(served, acked)) console.log(missingReport(id, acked, served, log));
    expect(served).toEqual(acked);
    stored += served.length;
  }
  return stored;
}

function missingReport(
  sessionId: string,
  acked: readonly unknown[],
  served: readonly unknown[],
  log: readonly LogRecord[],
): string {
  const servedSet = new Set(served.map((m) => JSON.stringify(m)));
  const lines = acked.flatMap((m, i) => {
    if (same(served[i], m) || servedSet.has(JSON.stringify(m))) return [];
    const where = log
      .filter((r) => r.event.sessionId === sessionId && r.event.type === 'message.appended')
      .filter((r) => (r.event.data as { clientMessageId?: string }).clientMessageId === `m-${i}:0`)
      .map((r) => `${r.partition}@${r.offset} (event ${r.event.eventId})`);
    return [`  acknowledged m-${i} not served; in the log at: ${where.join(', ') || 'nowhere'}`];
  });
  return `${sessionId}: ${acked.length} acknowledged, ${served.length} served\n${lines.join('\n')}`;
}

/** The blocks created for each session are those of a fault-free fold of its log, each id once; returns how many. */
export async function expectReferenceBlocks(
  sessionIds: readonly string[],
  log: readonly AnyEvent[],
  blockEvents: readonly AnyEvent[],
): Promise<number> {
  let blocks = 0;
  for (const id of sessionIds) {
    const expected = (await referenceBlocks(log.filter((e) => e.sessionId === id))).map((b) => b.id);
    const emitted = blockEvents
      .filter((e) => e.sessionId === id && e.type === 'block.created')
      .map((e) => (e.data as { block: { id: string } }).block.id);
    expect([...new Set(emitted)]).toEqual(expected);
    blocks += expected.length;
  }
  return blocks;
}
