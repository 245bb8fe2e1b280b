import { Registry } from 'prom-client';
import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { isPoison } from '@ctxledger/kafka';
import { CompactionMetrics } from './compaction.metrics';
import { CompactionService } from './compaction.service';
import type { EventPublisher, Outgoing } from './event-publisher';
import type { SummaryTimeouts } from './summary-timeouts';

/** The application service with its outputs collected in memory (the Kafka side is tested in test/integration). */
function serviceUnderTest() {
  const published: Outgoing[] = [];
  const publisher = { publish: async (out: readonly Outgoing[]) => void published.push(...out) } as EventPublisher;
  const timeouts = { start: () => undefined, clear: () => undefined, clearSession: () => undefined };
  const service = new CompactionService(
    publisher,
    timeouts as unknown as SummaryTimeouts,
    new CompactionMetrics(new Registry()),
  );
  return { service, published };
}

const message = (sessionId: string, tenant: string, i: number): AnyEvent =>
  createEvent(
    'message.appended',
    sessionId,
    { role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} `.repeat(400), clientMessageId: `m-${i}` },
    { tenant, eventId: `${tenant}-${i}` },
  ) as AnyEvent;

describe('CompactionService tenancy', () => {
  it("refuses another tenant's event for a session as poison and keeps the owner's session as if it never came", async () => {
    const owner = serviceUnderTest();
    const reference = serviceUnderTest();
    const config = createEvent(
      'session.configured',
      's-1',
      { provider: 'openai', model: 'gpt-4o', contextWindow: 8_000, maxOutputTokens: 1_000 },
      { tenant: 'acme', eventId: 'cfg' },
    ) as AnyEvent;
    for (const target of [owner, reference]) await target.service.handle(config, { partition: 0, replay: false });

    for (let i = 0; i < 30; i++) {
      const own = message('s-1', 'acme', i);
      await reference.service.handle(own, { partition: 0, replay: false });
      await owner.service.handle(own, { partition: 0, replay: false });
      if (i % 5 === 0) {
        // Same session id, another tenant, a clientMessageId the owner has not used yet.
        const intruder = message('s-1', 'mallory', 1_000 + i);
        const refusal = await owner.service.handle(intruder, { partition: 0, replay: false }).catch((e: unknown) => e);
        expect(isPoison(refusal)).toBe(true);
        expect((refusal as Error).message).toBe('session s-1 belongs to another tenant than "mallory"');
      }
    }

    const visible = (target: typeof owner) => {
      const { originals, active, rawTokens, effectiveTokens, pendingSummary } = target.service.stateOf('s-1')!;
      return { originals, active, rawTokens, effectiveTokens, pendingSummary };
    };
    expect(visible(owner)).toEqual(visible(reference));
    expect(visible(owner).originals).toHaveLength(30);
    expect(owner.published).toEqual(reference.published);
    expect(owner.published.some((o) => o.kind === 'block.created')).toBe(true);
  });
});
