import mongoose from 'mongoose';
import type { ChatMessage } from '@ctxledger/context-engine';
import { createEvent, encodeEvent, topicNames, type AnyEvent, type SummaryRequestedData } from '@ctxledger/contracts';
import { PAUSED_AFTER_STORE_MARKER } from '../../apps/summarizer-service/src/summary-requests/summary-requests.service';
import { FakeLlmServer } from '../support/fake-llm/fake-llm-server';
import { RECORDED_SUMMARY } from '../support/fake-llm/recorded';
import { testKafka, TopicCollector } from '../support/kafka-helpers';
import { startService, type RunningService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';

/** The stack's MongoDB URI with another database name. */
function withDatabase(uri: string, db: string): string {
  const url = new URL(uri);
  url.pathname = `/${db}`;
  return url.toString();
}
/**
 * The built summarizer-service on the real stack (Kafka + MongoDB wire), its LLM providers pointed at the
 * local fake: a request in, a result out on the session stream; a redelivery reuses the stored result; a
 * process killed after the LLM answered but before the result was published pays nothing more on restart.
 */

const KEY = 'sk-test-e2e-0123456789abcdef';

function conversation(turns: number): ChatMessage[] {
  return Array.from({ length: turns }, (_, t): ChatMessage[] => [
    { role: 'user', content: `Turn ${t}: fix the failing test in src/module${t}.ts` },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `c${t}`, name: 'read_file', arguments: `{"path":"src/module${t}.ts"}` }],
    },
    { role: 'tool', toolCallId: `c${t}`, toolName: 'read_file', content: `export const v${t} = 1;\n`.repeat(40) },
    { role: 'assistant', content: `Fixed src/module${t}.ts; the test passes.` },
  ]).flat();
}

const metricValue = (text: string, name: string, labels: Record<string, string>): number =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);

async function dropDatabase(uri: string): Promise<void> {
  const connection = await mongoose.createConnection(uri).asPromise();
  await connection.dropDatabase();
  await connection.close();
}

async function metrics(service: RunningService): Promise<string> {
  return (await fetch(`${service.url}/metrics`)).text();
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('summarizer-service on the real stack', () => {
  const fake = new FakeLlmServer();
  const kafka = testKafka('summarizer-test');
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });

  const serviceEnv = (prefix: string, db: string, extra: Record<string, string> = {}): Record<string, string> => ({
    TOPIC_PREFIX: prefix,
    MONGODB_URI: withDatabase(testStack().mongoUri, db),
    SUMMARIZER_PROVIDER: 'openai',
    SUMMARIZER_FALLBACK: 'none',
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: fake.baseUrls.openai,
    ANTHROPIC_API_KEY: KEY,
    ANTHROPIC_BASE_URL: fake.baseUrls.anthropic,
    GEMINI_API_KEY: KEY,
    GEMINI_BASE_URL: fake.baseUrls.google,
    SUMMARIZER_RETRY_BASE_MS: '20',
    SUMMARIZER_TIMEOUT_MS: '5000',
    ...extra,
  });

  const request = (
    prefix: string,
    sessionId: string,
    data: Partial<SummaryRequestedData> & { requestId: string },
    eventId: string,
  ) =>
    producer.send({
      topic: topicNames(prefix).summaryRequests,
      messages: [
        {
          key: sessionId,
          value: encodeEvent(
            createEvent(
              'summary.requested',
              sessionId,
              {
                range: { from: 0, to: 40 },
                messages: conversation(10),
                maxSummaryTokens: 1500,
                ...data,
              } as SummaryRequestedData,
              { eventId, tenant: 'acme' },
            ) as AnyEvent,
          ),
        },
      ],
    });

  const resultsFor = (collector: TopicCollector, requestId: string) =>
    collector.events.filter(
      (e) => (e.type === 'summary.completed' || e.type === 'summary.failed') && e.data.requestId === requestId,
    );

  beforeAll(async () => {
    await fake.start();
    await producer.connect();
  });

  afterAll(async () => {
    await producer.disconnect();
    await fake.close();
  });

  beforeEach(() => fake.reset());

  describe('request in, result out', () => {
    const prefix = unique('sum').replace(/-/g, '_');
    const db = unique('summarizer').replace(/-/g, '_');
    let service: RunningService | undefined;
    let results: TopicCollector;

    beforeAll(async () => {
      service = await startService('summarizer-service', serviceEnv(prefix, db));
      results = await new TopicCollector(kafka, topicNames(prefix).sessionEvents).start();
    });

    afterAll(async () => {
      await results?.stop();
      await service?.stop();
      await dropDatabase(serviceEnv(prefix, db).MONGODB_URI);
    });

    it('publishes summary.completed on the session stream, keyed by session, with an id derived from the request', async () => {
      const sessionId = unique('s');
      await request(prefix, sessionId, { requestId: `${sessionId}:r1` }, `${sessionId}:req-event-1`);
      await results.until(() => resultsFor(results, `${sessionId}:r1`).length > 0, 'the summary');
      const [event] = resultsFor(results, `${sessionId}:r1`);
      expect(event).toMatchObject({
        type: 'summary.completed',
        sessionId,
        tenant: 'acme',
        eventId: `summary:${sessionId}:r1#1`,
        causationId: `${sessionId}:req-event-1`,
        data: { requestId: `${sessionId}:r1`, summary: RECORDED_SUMMARY, provider: 'openai', model: 'gpt-4o-mini' },
      });
      expect(fake.calls).toHaveLength(1);
      expect(service!.output()).not.toContain(KEY);
    });

    it('answers with the provider the request names, or offline', async () => {
      const sessionId = unique('s');
      const providers = ['anthropic', 'google', 'offline'] as const;
      for (const provider of providers) {
        await request(
          prefix,
          sessionId,
          { requestId: `${sessionId}:${provider}`, summarizer: { provider } },
          `${sessionId}:${provider}`,
        );
      }
      await results.until(
        () => providers.every((p) => resultsFor(results, `${sessionId}:${p}`).length > 0),
        'the three summaries',
      );
      for (const provider of providers) {
        expect(resultsFor(results, `${sessionId}:${provider}`)[0]).toMatchObject({
          type: 'summary.completed',
          data: { provider },
        });
      }
      expect(fake.callsTo('anthropic')).toHaveLength(1);
      expect(fake.callsTo('google')).toHaveLength(1);
      expect(fake.callsTo('openai')).toHaveLength(0);
    });

    it('publishes summary.failed (not retryable) for an overflow, after a single call', async () => {
      const sessionId = unique('s');
      fake.script('openai', { fault: 'overflow' });
      await request(prefix, sessionId, { requestId: `${sessionId}:r` }, `${sessionId}:e`);
      await results.until(() => resultsFor(results, `${sessionId}:r`).length > 0, 'the failure');
      expect(resultsFor(results, `${sessionId}:r`)[0]).toMatchObject({
        type: 'summary.failed',
        data: { retryable: false, reason: expect.stringMatching(/overflow \(HTTP 400\)/) },
      });
      expect(fake.calls).toHaveLength(1);
    });

    it('a redelivered request reuses the stored result: no second LLM call, no second result', async () => {
      const sessionId = unique('s');
      await request(prefix, sessionId, { requestId: `${sessionId}:r` }, `${sessionId}:e1`);
      await results.until(() => resultsFor(results, `${sessionId}:r`).length > 0, 'the summary');
      const reusedBefore = metricValue(await metrics(service!), 'ctxledger_summarizer_requests_total', {
        outcome: 'reused',
      });
      // The same request again (a producer retry or a replay: same request id, another record).
      await request(prefix, sessionId, { requestId: `${sessionId}:r` }, `${sessionId}:e1-again`);
      let reused = reusedBefore;
      await until(async () => {
        reused = metricValue(await metrics(service!), 'ctxledger_summarizer_requests_total', { outcome: 'reused' });
        return reused > reusedBefore;
      }, 'the redelivery to be handled');
      expect(reused).toBe(reusedBefore + 1);
      expect(fake.calls).toHaveLength(1);
      expect(resultsFor(results, `${sessionId}:r`)).toHaveLength(1);
    });

    it('exposes the summarizer metrics without ids as labels', async () => {
      const text = await metrics(service!);
      for (const name of [
        'ctxledger_summarizer_requests_total',
        'ctxledger_summarizer_request_duration_seconds_bucket',
        'ctxledger_summarizer_provider_calls_total',
        'ctxledger_summarizer_provider_call_duration_seconds_bucket',
        'ctxledger_summarizer_input_tokens_total',
        'ctxledger_summarizer_output_tokens_total',
      ]) {
        expect(text).toContain(`${name}{`);
      }
      expect(text).toMatch(/ctxledger_summarizer_requests_total\{[^}]*provider="openai"[^}]*outcome="completed"/);
      expect(text).not.toMatch(/session|tenant|request_?id/i);
    });
  });

  it('killed after the LLM answered but before the result was published: after restart, no second call and the result is published', async () => {
    const prefix = unique('sumkill').replace(/-/g, '_');
    const db = unique('summarizer_kill').replace(/-/g, '_');
    const sessionId = unique('s');
    const requestId = `${sessionId}:r`;
    let results: TopicCollector | undefined;
    let service: RunningService | undefined;
    try {
      // The test hook stops right after the result is stored, before it is published.
      service = await startService(
        'summarizer-service',
        serviceEnv(prefix, db, { SUMMARIZER_TEST_PAUSE_AFTER_STORE: 'true' }),
      );
      results = await new TopicCollector(kafka, topicNames(prefix).sessionEvents).start();
      await request(prefix, sessionId, { requestId }, `${sessionId}:e`);
      await until(
        () => service!.output().includes(`${PAUSED_AFTER_STORE_MARKER} ${requestId}`),
        'the result to be stored',
      );
      expect(fake.calls).toHaveLength(1);

      const connection = await mongoose.createConnection(serviceEnv(prefix, db).MONGODB_URI).asPromise();
      try {
        const stored = await connection.collection('summaries').findOne({ requestId });
        expect(stored).toMatchObject({ requestId, outcome: 'completed', summary: RECORDED_SUMMARY, attempt: 1 });
        expect(stored?.publishedAt).toBeUndefined();
      } finally {
        await connection.close();
      }

      await service.kill();
      expect(resultsFor(results, requestId)).toHaveLength(0);
      const collected = results;

      // Restarted without the hook: Kafka redelivers the uncommitted request; the stored result is published.
      service = await startService('summarizer-service', serviceEnv(prefix, db));
      await collected.until(() => resultsFor(collected, requestId).length > 0, 'the result after the restart', 100_000);
      expect(resultsFor(collected, requestId)[0]).toMatchObject({
        type: 'summary.completed',
        eventId: `summary:${requestId}#1`,
        data: { summary: RECORDED_SUMMARY },
      });
      expect(fake.calls).toHaveLength(1);
      // Counted once the publish is acknowledged, which can be a moment after the record is readable.
      const reused = () =>
        metrics(service!).then((text) =>
          metricValue(text, 'ctxledger_summarizer_requests_total', { outcome: 'reused' }),
        );
      await until(async () => (await reused()) > 0, 'the reuse to be counted');
      expect(await reused()).toBe(1);
    } finally {
      await results?.stop();
      await service?.stop();
      await dropDatabase(serviceEnv(prefix, db).MONGODB_URI);
    }
  }, 180_000);
});
