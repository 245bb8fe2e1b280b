import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { ENGINE_VERSION } from '@ctxledger/context-engine';
import { HttpErrorsModule } from '../http/http-errors.module';
import { configureHttp } from '../http/http-setup';
import { SecurityModule } from '../http/security.module';
import { ProjectionHandler } from '../projector/projection.handler';
import {
  inMemoryAdapters,
  listen,
  testPlatform,
  withInMemoryAdapters,
  type InMemoryAdapters,
} from '../testing/in-memory-wiring';
import { CommandsModule } from './commands.module';

// The write side's Nest wiring, without Kafka or MongoDB: the real CommandsModule (and the modules it imports)
// over HTTP, with the session-event publisher, the idempotency keys and the read model in memory, and the
// service's one exception filter turning the use cases' domain errors into their HTTP answers.

describe('CommandsModule wiring (in-memory adapters, over HTTP)', () => {
  let app: INestApplication;
  let adapters: InMemoryAdapters;
  let base: string;

  beforeEach(async () => {
    adapters = inMemoryAdapters();
    const moduleRef = await withInMemoryAdapters(
      Test.createTestingModule({ imports: [testPlatform(), SecurityModule, HttpErrorsModule, CommandsModule] }),
      adapters,
    ).compile();
    app = moduleRef.createNestApplication({ logger: false });
    configureHttp(app);
    base = await listen(app);
  });

  afterEach(() => app.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant': 't1', ...headers },
      body: JSON.stringify(body),
    });

  /** Hands what was published to the projector, as the session stream's consumer would. */
  const project = async (events: readonly AnyEvent[], first = 0) =>
    app.get(ProjectionHandler).onSessionEvents({
      topic: 'sessions',
      partition: 0,
      events,
      offsets: events.map((_, i) => String(first + i)),
    });

  it('POST messages: the publisher got one message.appended per message, and the answer its offsets', async () => {
    const res = await post('/v1/sessions/s1/messages', {
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
      ],
    });

    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({
      sessionId: 's1',
      partition: 0,
      offsets: ['0', '1'],
      waitToken: '1',
      accepted: 2,
      clientMessageIds: [null, null],
      idempotencyKey: null,
    });
    const events = adapters.publisher.events();
    expect(events.map((e) => [e.type, e.sessionId, e.tenant])).toEqual([
      ['message.appended', 's1', 't1'],
      ['message.appended', 's1', 't1'],
    ]);
    expect(events.map((e) => (e.data as { content: string }).content)).toEqual(['hello', 'hi']);
  });

  it('a refused Idempotency-Key is InvalidRequestError → 400 naming it, and nothing is published', async () => {
    const res = await post(
      '/v1/sessions/s1/messages',
      { role: 'user', content: 'x' },
      { 'idempotency-key': 'no spaces' },
    );

    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: [expect.stringMatching(/^Idempotency-Key: must be 1-\d+ of letters, digits and _:@-$/)],
    });
    expect(adapters.publisher.events()).toEqual([]);
  });

  it("a body class-validator refuses is 400 from the pipe (the use case isn't reached)", async () => {
    const res = await post('/v1/sessions/s1/messages', { role: 'robot', content: 'x' });

    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: unknown }).message).toEqual([expect.stringContaining('role')]);
    expect(adapters.publisher.events()).toEqual([]);
  });

  it('the same Idempotency-Key with another body is IdempotencyConflictError → 409 naming the key', async () => {
    const first = await post('/v1/sessions/s1/messages', { role: 'user', content: 'a' }, { 'idempotency-key': 'k1' });
    expect(first.status).toBe(202);
    expect(((await first.json()) as { clientMessageIds: unknown }).clientMessageIds).toEqual(['k1:0']);

    const again = await post('/v1/sessions/s1/messages', { role: 'user', content: 'a' }, { 'idempotency-key': 'k1' });
    expect(again.status).toBe(202);

    const other = await post('/v1/sessions/s1/messages', { role: 'user', content: 'b' }, { 'idempotency-key': 'k1' });
    expect(other.status).toBe(409);
    expect(await other.json()).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: expect.stringMatching(
        /^Idempotency-Key "k1" was already used on session s1 with another body \(1 message, first at /,
      ),
      idempotencyKey: 'k1',
    });
    expect(adapters.keys.bound.size).toBe(1);
  });

  it('an append Kafka did not acknowledge is OutcomeUnknownError → 503, outcome unknown, Retry-After', async () => {
    adapters.publisher.failNext(2);

    const res = await post('/v1/sessions/s1/messages', { role: 'user', content: 'x' }, { 'idempotency-key': 'k2' });

    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(await res.json()).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      outcome: 'unknown',
      message: expect.stringContaining(
        'the outcome is unknown; retrying the same body with Idempotency-Key "k2" is safe: it appends nothing twice',
      ),
      idempotencyKey: 'k2',
      retryAfterSeconds: 2,
    });
    expect(adapters.publisher.events()).toEqual([]);
  });

  it("another tenant's session is OtherTenantSessionError → 404, as a session that does not exist", async () => {
    await project([createEvent('message.appended', 's2', { role: 'user', content: 'theirs' }, { tenant: 't2' })]);

    const res = await post('/v1/sessions/s2/messages', { role: 'user', content: 'mine' });

    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'session s2 not found' });
    expect(adapters.publisher.events()).toEqual([]);
  });

  it('compaction, overflow and revert: on a projected session; 404 and 422 as domain errors', async () => {
    const unknown = await post('/v1/sessions/s3/compactions', {});
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'session s3 not found' });

    expect((await post('/v1/sessions/s3/messages', { role: 'user', content: 'hello' })).status).toBe(202);
    await project(adapters.publisher.events());

    const compaction = await post('/v1/sessions/s3/compactions', {});
    expect(compaction.status).toBe(202);
    expect(adapters.publisher.events().at(-1)).toMatchObject({
      type: 'compaction.requested',
      sessionId: 's3',
      data: { trigger: 'manual' },
    });

    const notOverflow = await post('/v1/sessions/s3/overflow', {
      errorText: '429 Too Many Requests: rate limit exceeded',
    });
    expect(notOverflow.status).toBe(422);
    expect(await notOverflow.json()).toMatchObject({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: expect.stringMatching(/^not a context overflow but a rate limit/),
      classification: { kind: 'rate-limit' },
    });

    const noBlock = await post('/v1/sessions/s3/blocks/b9/revert', {});
    expect(noBlock.status).toBe(404);
    expect(await noBlock.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'block b9 not found in session s3',
    });

    const block = {
      id: 'b1',
      sessionId: 's3',
      stage: 'summary',
      range: { from: 0, to: 0 },
      edits: [{ from: 0, to: 0, replacement: [{ role: 'user', content: 'summary' }] }],
      tokensBefore: 10,
      tokensAfter: 2,
      tokensSaved: 8,
      basedOnPosition: 0,
      engineVersion: ENGINE_VERSION,
    };
    await app.get(ProjectionHandler).onBlocks({
      topic: 'blocks',
      partition: 0,
      events: [createEvent('block.created', 's3', { block } as never, { tenant: 't1' })],
      offsets: ['0'],
    });
    const revert = await post('/v1/sessions/s3/blocks/b1/revert', {});
    expect(revert.status).toBe(202);
    expect(await revert.json()).toMatchObject({ sessionId: 's3', alreadyReverted: false });
    expect(adapters.publisher.events().at(-1)).toMatchObject({
      type: 'block-revert.requested',
      data: { blockId: 'b1' },
    });
  });
});
