import { Registry } from 'prom-client';
import { createEvent, type EventEnvelope, type SummaryRequestedData } from '@ctxledger/contracts';
import type { Summarizer, SummaryOutcome } from '../summarization/summarizer';
import { SummarizerMetrics } from '../summarization/summarizer.metrics';
import { resultEvent, type ResultPublisher } from './result-publisher';
import { SummaryRequestsService } from './summary-requests.service';
import { InMemorySummaryStore } from './summary-store';

const request = (requestId = 'r1') =>
  createEvent(
    'summary.requested',
    's1',
    {
      requestId,
      range: { from: 0, to: 2 },
      messages: [{ role: 'user', content: 'hi' }],
      maxSummaryTokens: 100,
    } as SummaryRequestedData,
    { eventId: `e-${requestId}`, tenant: 't1' },
  ) as EventEnvelope<'summary.requested'>;

function setup(outcomes: SummaryOutcome[]) {
  const store = new InMemorySummaryStore();
  const published: ReturnType<typeof resultEvent>[] = [];
  const publisher: ResultPublisher = { publish: async (result, req) => void published.push(resultEvent(result, req)) };
  let calls = 0;
  const summarizer = { summarize: async () => outcomes[calls++] } as unknown as Summarizer;
  const registry = new Registry();
  const service = new SummaryRequestsService(store, publisher, summarizer, new SummarizerMetrics(registry));
  return { service, store, published, calls: () => calls, registry };
}

const done: SummaryOutcome = {
  kind: 'completed',
  summary: '# S',
  provider: 'openai',
  model: 'm',
  inputTokens: 10,
  outputTokens: 2,
};
const rateLimited: SummaryOutcome = {
  kind: 'failed',
  reason: 'rate-limit',
  retryable: true,
  reusable: false,
  provider: 'openai',
};
const overflow: SummaryOutcome = {
  kind: 'failed',
  reason: 'overflow',
  retryable: false,
  reusable: true,
  provider: 'openai',
};

describe('SummaryRequestsService (idempotent on the request id)', () => {
  it('stores, then publishes on the session stream with a deterministic id, then marks it published', async () => {
    const { service, store, published } = setup([done]);
    await service.handle(request());
    expect(published).toEqual([
      expect.objectContaining({
        type: 'summary.completed',
        sessionId: 's1',
        tenant: 't1',
        eventId: 'summary:r1#1',
        causationId: 'e-r1',
        data: { requestId: 'r1', summary: '# S', provider: 'openai', model: 'm', inputTokens: 10, outputTokens: 2 },
      }),
    ]);
    expect(store.docs.get('r1')?.publishedAt).toBeInstanceOf(Date);
  });

  it('a redelivery reuses the stored result: no second summary, no second event once published', async () => {
    const { service, published, calls } = setup([done, done]);
    await service.handle(request());
    await service.handle(request());
    expect(calls()).toBe(1);
    expect(published).toHaveLength(1);
  });

  it('a second delivery while the first is still being handled waits for it instead of summarizing again', async () => {
    const { service, published, calls } = setup([done, done]);
    await Promise.all([service.handle(request()), service.handle(request())]);
    expect(calls()).toBe(1);
    expect(published).toHaveLength(1);
  });

  it('a result stored but never published (crash) is published on redelivery, without summarizing again', async () => {
    const { service, store, published, calls } = setup([done]);
    const first = await service.handle(request());
    store.docs.set('r1', { ...first, publishedAt: undefined });
    published.length = 0;
    await service.handle(request());
    expect(calls()).toBe(1);
    expect(published.map((e) => e.eventId)).toEqual(['summary:r1#1']);
  });

  it('a failure caused by the request (overflow) is reused; one caused by the environment is tried again as attempt 2', async () => {
    const a = setup([overflow, done]);
    await a.service.handle(request());
    await a.service.handle(request());
    expect(a.calls()).toBe(1);

    const b = setup([rateLimited, done]);
    await b.service.handle(request());
    await b.service.handle(request());
    expect(b.calls()).toBe(2);
    expect(b.published.map((e) => [e.type, e.eventId])).toEqual([
      ['summary.failed', 'summary:r1#1'],
      ['summary.completed', 'summary:r1#2'],
    ]);
  });
});
