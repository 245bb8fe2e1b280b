/**
 * @exclusive drives a session service as hard as it answers (2,000 requests) and allows no 5xx: the load
 * of a second file beside it would be measured with it.
 */
import fc from 'fast-check';
import { createEvent } from '@ctxledger/contracts';
import { ENGINE_VERSION } from '@ctxledger/context-engine';
import { OpenApiFuzzer, type FuzzRequest, type OpenApiDocument } from '../support/fault/openapi-fuzz';
import { faultSeed } from '../support/fault/seeded-random';
import { testStack } from '../support/stack-settings';
import { transcript } from '../support/transcripts';
import { dropDatabase, RawProducer, startSessionService, until, type SessionServiceUnderTest } from './session-harness';

const REQUESTS = Number(process.env.FAULT_FUZZ_REQUESTS ?? 2000);
const CONCURRENCY = 12;

describe('fault: the HTTP API fuzzed from its own OpenAPI document (malformed, oversized, wrong types)', () => {
  // Stops nothing, so it runs on the shared stack (its own topic prefix and database).
  const stack = testStack();
  const seed = faultSeed();
  let api: SessionServiceUnderTest;

  beforeAll(async () => {
    // Long-polls capped at 1 s, so a generated `after=` far ahead costs at most that.
    api = await startSessionService('fault-fuzz', stack, {
      READ_YOUR_WRITES_DEFAULT_MS: '300',
      READ_YOUR_WRITES_MAX_MS: '1000',
      AUTH_MODE: 'none',
      RATE_LIMIT_REQUESTS: '0', // the limiter answers 429 before the handlers: off, so the fuzz reaches them
    });
  }, 120_000);

  afterAll(async () => {
    await api?.service.stop();
    if (api) await dropDatabase(stack.mongoUri, api.database).catch(() => undefined);
  });

  it('no 5xx, no dropped connection, the process alive and still serving', async () => {
    const started = Date.now();
    // A session that exists, with messages and a block, so that requests reach the deeper paths too.
    const sessionId = 'fuzz-s';
    const chat = transcript('claude-code:0ccf1a04-1b4c-43b6-8aa5-79e41db43a68');
    expect(
      (await api.call('PUT', `/v1/sessions/${sessionId}/config`, { provider: 'anthropic', contextWindow: 9000 }))
        .status,
    ).toBe(202);
    const posted = await api.call('POST', `/v1/sessions/${sessionId}/messages`, {
      messages: chat.messages.slice(0, 12),
    });
    expect(posted.status).toBe(202);
    const producer = new RawProducer(stack.brokers);
    await producer.connect();
    await producer.send(api.topics.blocks, [
      createEvent('block.created', sessionId, {
        block: {
          id: 'fuzz-block',
          sessionId,
          stage: 'summary',
          range: { from: 0, to: 3 },
          edits: [{ from: 0, to: 3, replacement: [{ role: 'user', content: 'summary' }] }],
          tokensBefore: 300,
          tokensAfter: 30,
          tokensSaved: 270,
          basedOnPosition: 3,
          engineVersion: ENGINE_VERSION,
        },
      } as never),
    ]);
    await producer.disconnect();
    await until(
      async () => ((await api.call('GET', `/v1/sessions/${sessionId}/blocks`)).body?.blocks?.length ? true : undefined),
      'the block to be projected',
      30_000,
    );

    const doc = (await api.call('GET', '/v1/docs-json')).body as OpenApiDocument;
    expect(Object.keys(doc.paths).length).toBeGreaterThan(5);
    // Found by reading what the fuzz was generating: the document made the optional Idempotency-Key required
    // (listed twice, once per spelling). Every header the API reads is optional.
    const requiredHeaders = Object.values(doc.paths).flatMap((ops) =>
      Object.values(ops).flatMap((op) => (op.parameters ?? []).filter((p) => p.in === 'header' && p.required)),
    );
    expect(requiredHeaders).toEqual([]);
    const fuzzer = new OpenApiFuzzer(doc, {
      sessionIds: [sessionId, 'no-such-session'],
      blockIds: ['fuzz-block', 'nope'],
    });
    const requests = fc.sample(fuzzer.requests(), { seed, numRuns: REQUESTS });
    console.log(
      `fault-fuzz: seed ${seed} (FAULT_SEED), ${requests.length} requests over ${Object.keys(doc.paths).length} paths`,
    );

    const statuses = new Map<number, number>();
    const failures: Array<{ request: FuzzRequest; status: number; answer: string }> = [];
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const request = requests[next++]!;
        let status = 0;
        let answer: string;
        try {
          const res = await fetch(`${api.service.url}${request.path}`, {
            method: request.method,
            headers: request.headers,
            ...(request.body !== undefined && { body: request.body }),
            signal: AbortSignal.timeout(20_000),
          });
          status = res.status;
          answer = await res.text();
        } catch (error) {
          answer = String((error as Error).cause ?? error);
        }
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        // 504 is the documented answer of `after=` when the read model did not reach that offset within waitMs.
        const documented = status === 504 && /waited \d+ ms for the read model/.test(answer);
        if (status === 0 || (status >= 500 && !documented))
          failures.push({ request, status, answer: answer.slice(0, 500) });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    const summary = [...statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
    console.log(
      `fault-fuzz: ${requests.length} requests in ${Math.round((Date.now() - started) / 1000)} s; statuses ${summary}`,
    );
    const shown = failures.slice(0, 5).map(({ request, status, answer }) => ({
      status,
      answer,
      kind: request.kind,
      method: request.method,
      path: request.path.slice(0, 300),
      headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, v.slice(0, 100)])),
      body: request.body?.slice(0, 300),
    }));
    expect({ failures: failures.length, first: shown }).toEqual({ failures: 0, first: [] });
    // Sanity: the fuzz reached the handlers, not only the validation.
    expect(statuses.get(202) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);

    expect(api.service.process.exitCode).toBeNull();
    expect((await api.call('GET', '/health')).status).toBe(200);
    const history = await api.call('GET', `/v1/sessions/${sessionId}/history?view=full&after=${posted.body.waitToken}`);
    expect(history.status).toBe(200);
    expect(history.body.messages.slice(0, 12)).toEqual(chat.messages.slice(0, 12));
  }, 240_000);
});
