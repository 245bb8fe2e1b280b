import { randomBytes } from 'node:crypto';
import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { ENGINE_VERSION, type CompactionBlock } from '@ctxledger/context-engine';
import { startService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';
import {
  dropDatabase,
  RawProducer,
  startSessionService,
  until,
  withDatabase,
  type SessionServiceUnderTest,
} from './session-harness';

const key = () => randomBytes(32).toString('hex');
const ACME = key();
const GLOBEX = key();
const bearer = (k: string) => ({ authorization: `Bearer ${k}` });

function blockEvent(sessionId: string, tenant: string): AnyEvent {
  const block: CompactionBlock = {
    id: 'blk-1',
    sessionId,
    stage: 'summary',
    range: { from: 0, to: 1 },
    edits: [{ from: 0, to: 1, replacement: [{ role: 'user', content: 'summary' }] }],
    tokensBefore: 200,
    tokensAfter: 20,
    tokensSaved: 180,
    basedOnPosition: 1,
    engineVersion: ENGINE_VERSION,
  };
  return createEvent('block.created', sessionId, { block } as never, { tenant });
}

/** Every route of a session, as [method, path suffix, body]. */
const ROUTES: [string, string, unknown][] = [
  ['GET', 'history', undefined],
  ['GET', 'stats', undefined],
  ['GET', 'blocks', undefined],
  ['POST', 'messages', { role: 'user', content: 'hello' }],
  ['PUT', 'config', { model: 'gpt-4o' }],
  ['POST', 'compactions', undefined],
  ['POST', 'overflow', { errorText: 'prompt is too long: 210000 tokens > 200000 maximum' }],
  ['POST', 'blocks/blk-1/revert', undefined],
];

describe('security of the session API: API keys, tenant isolation, ids, rate limits (real Kafka + MongoDB-wire)', () => {
  let api: SessionServiceUnderTest;
  let producer: RawProducer;
  const as =
    (k: string) =>
    (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      api.call(method, path, body, { ...bearer(k), ...headers });

  beforeAll(async () => {
    api = await startSessionService('security', testStack(), {
      API_KEYS: `acme:${ACME},globex:${GLOBEX}`,
      HTTP_BODY_LIMIT_BYTES: '100000',
    });
    producer = new RawProducer(testStack().brokers);
    await producer.connect();
  });

  afterAll(async () => {
    await api?.service.stop();
    await producer?.disconnect();
    if (api) await dropDatabase(testStack().mongoUri, api.database);
  });

  it('answers 401 with a clear body without a key, with a wrong key or a malformed Authorization', async () => {
    const s = unique('auth');
    for (const [method, suffix, body] of ROUTES) {
      const none = await api.call(method, `/v1/sessions/${s}/${suffix}`, body);
      expect([method, suffix, none.status]).toEqual([method, suffix, 401]);
      expect(none.body).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'missing API key: send Authorization: Bearer <key> (or X-Api-Key: <key>)',
      });
    }
    const raw = await fetch(`${api.service.url}/v1/sessions/${s}/stats`);
    expect(raw.headers.get('www-authenticate')).toBe('Bearer realm="context-ledger"');
    const wrong = await api.call('GET', `/v1/sessions/${s}/stats`, undefined, bearer(key()));
    expect(wrong).toEqual({
      status: 401,
      body: { statusCode: 401, error: 'Unauthorized', message: 'invalid API key' },
    });
    const wrongHeader = await api.call('GET', `/v1/sessions/${s}/stats`, undefined, { 'x-api-key': ACME.slice(1) });
    expect(wrongHeader.status).toBe(401);
    const basic = await api.call('GET', `/v1/sessions/${s}/stats`, undefined, { authorization: `Basic ${ACME}` });
    expect(basic.status).toBe(401);
    expect(basic.body.message).toMatch(/Bearer/);
    // X-Tenant alone does not authenticate any more.
    expect((await api.call('GET', `/v1/sessions/${s}/stats`, undefined, { 'X-Tenant': 'acme' })).status).toBe(401);
  });

  it('keeps /health, /metrics and the OpenAPI document open, and documents both key headers', async () => {
    expect((await api.call('GET', '/health')).status).toBe(200);
    expect((await api.call('GET', '/metrics')).status).toBe(200);
    const doc = await api.call('GET', '/v1/docs-json');
    expect(doc.status).toBe(200);
    expect(doc.body.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      'api-key': expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }),
    });
    const history = doc.body.paths['/v1/sessions/{sessionId}/history'].get;
    expect(history.security).toEqual(expect.arrayContaining([{ bearer: [] }, { 'api-key': [] }]));
    expect(Object.keys(history.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
  });

  it("a tenant can neither read, write, compact nor revert another tenant's session: 404 on every route", async () => {
    const acme = as(ACME);
    const globex = as(GLOBEX);
    const s = unique('iso');
    const w = await acme('POST', `/v1/sessions/${s}/messages`, { role: 'user', content: 'secret plan' });
    expect(w.status).toBe(202);
    await acme('POST', `/v1/sessions/${s}/messages`, { role: 'assistant', content: 'noted' });
    await producer.send(api.topics.blocks, [blockEvent(s, 'acme')]);
    const blocks = await until(async () => {
      const r = await acme('GET', `/v1/sessions/${s}/blocks?after=${w.body.waitToken}`);
      return r.status === 200 && r.body.blocks.length === 1 ? r : undefined;
    }, 'the block of acme projected');
    expect(blocks.body.blocks[0].id).toBe('blk-1');

    for (const [method, suffix, body] of ROUTES) {
      const other = await globex(method, `/v1/sessions/${s}/${suffix}`, body);
      expect([method, suffix, other.status]).toEqual([method, suffix, 404]);
      expect(JSON.stringify(other.body)).not.toContain('secret plan');
      // Claiming the owner's tenant with the other tenant's key is refused outright.
      const claim = await globex(method, `/v1/sessions/${s}/${suffix}`, body, { 'X-Tenant': 'acme' });
      expect([method, suffix, claim.status]).toEqual([method, suffix, 403]);
    }
    // The owner still reads its session, unchanged by the attempts (nothing of globex got appended).
    const history = await acme('GET', `/v1/sessions/${s}/history?view=full`);
    expect(history.status).toBe(200);
    expect(history.body.originalMessageCount).toBe(2);
    const ok = await fetch(`${api.service.url}/v1/sessions/${s}/stats`, { headers: bearer(ACME) });
    expect([ok.status, ok.headers.get('www-authenticate')]).toEqual([200, null]);
    // The owner may do everything; X-Api-Key works like Bearer; an X-Tenant equal to the key's is fine.
    const own = (method: string, suffix: string, body?: unknown) =>
      api.call(method, `/v1/sessions/${s}/${suffix}`, body, { 'x-api-key': ACME, 'X-Tenant': 'acme' });
    for (const [method, suffix, body] of ROUTES) {
      const res = await own(method, suffix, body);
      expect([method, suffix, res.status]).toEqual([method, suffix, method === 'GET' ? 200 : 202]);
    }
  });

  it('refuses ids that could smuggle query operators with 400, on every route', async () => {
    const acme = as(ACME);
    const bad = ['{"$gt":""}', '$where', 'a.b', '$ne', 'a b', '../x', 'x'.repeat(201)];
    for (const id of bad) {
      for (const [method, suffix, body] of ROUTES) {
        const res = await acme(method, `/v1/sessions/${encodeURIComponent(id)}/${suffix}`, body);
        expect([id, method, suffix, res.status]).toEqual([id, method, suffix, 400]);
        expect(res.body.message.join()).toMatch(/sessionId: must be/);
      }
      const block = await acme('POST', `/v1/sessions/ok-session/blocks/${encodeURIComponent(id)}/revert`);
      expect([id, block.status]).toEqual([id, 400]);
    }
    // Operators in the query string and in headers are refused too.
    const s = unique('q');
    expect((await acme('GET', `/v1/sessions/${s}/history?after[$gt]=`)).status).toBe(400);
    expect((await acme('GET', `/v1/sessions/${s}/stats?waitMs[$ne]=1`)).status).toBe(400);
    expect(
      (
        await acme(
          'POST',
          `/v1/sessions/${s}/messages`,
          { role: 'user', content: 'x' },
          { 'idempotency-key': '$where' },
        )
      ).status,
    ).toBe(400);
  });

  it('refuses a body over HTTP_BODY_LIMIT_BYTES with 413', async () => {
    const res = await as(ACME)('POST', `/v1/sessions/${unique('big')}/messages`, {
      role: 'user',
      content: 'x'.repeat(150_000),
    });
    expect(res.status).toBe(413);
  });
});

describe('per-tenant rate limit', () => {
  let api: SessionServiceUnderTest;

  beforeAll(async () => {
    api = await startSessionService('ratelimit', testStack(), {
      API_KEYS: `acme:${ACME}\nglobex:${GLOBEX}`,
      RATE_LIMIT_REQUESTS: '5',
      RATE_LIMIT_WINDOW_MS: '60000',
    });
  });

  afterAll(async () => {
    await api?.service.stop();
    if (api) await dropDatabase(testStack().mongoUri, api.database);
  });

  it('answers 429 with Retry-After once a tenant is over its limit, counts every route, and leaves other tenants and /health alone', async () => {
    const s = unique('rl');
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await api.call('GET', `/v1/sessions/${s}/stats`, undefined, bearer(ACME))).status);
    for (let i = 0; i < 2; i++)
      statuses.push((await api.call('GET', `/v1/sessions/${s}/blocks`, undefined, bearer(ACME))).status);
    expect(statuses).toEqual([404, 404, 404, 404, 404]); // five calls allowed (the session does not exist)

    const res = await fetch(`${api.service.url}/v1/sessions/${s}/history`, { headers: bearer(ACME) });
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await res.json()) as { message: string };
    expect(body.message).toMatch(/rate limit reached for tenant acme: 5 requests per 60 s; retry after \d+ s/);

    // Another tenant from the same address has its own budget; probes are never limited.
    expect((await api.call('GET', `/v1/sessions/${s}/stats`, undefined, bearer(GLOBEX))).status).toBe(404);
    for (let i = 0; i < 10; i++) {
      expect((await api.call('GET', '/health')).status).toBe(200);
      expect((await api.call('GET', '/metrics')).status).toBe(200);
    }
    // A request without a valid key is refused before it counts against anyone.
    expect((await api.call('GET', `/v1/sessions/${s}/stats`, undefined, bearer(key()))).status).toBe(401);
  });
});

describe('boot-time auth configuration', () => {
  const database = unique('boot').replace(/-/g, '_').slice(0, 60);
  const env = (extra: Record<string, string>) => ({
    MONGODB_URI: withDatabase(testStack().mongoUri, database),
    TOPIC_PREFIX: unique('boot').replace(/-/g, '_'),
    ...extra,
  });
  afterAll(() => dropDatabase(testStack().mongoUri, database).catch(() => undefined));

  it('refuses to boot without keys on a non-loopback address unless AUTH_MODE=none says so', async () => {
    await expect(startService('session-service', env({ HOST: '0.0.0.0' }), 20_000)).rejects.toThrow(
      /AUTH_MODE: no API keys while listening on 0\.0\.0\.0/,
    );
    await expect(startService('session-service', env({ AUTH_MODE: 'api-key' }), 20_000)).rejects.toThrow(
      /API_KEYS: required with AUTH_MODE=api-key/,
    );
  });

  it('never shows a key in a refusal or in the logs', async () => {
    const secret = key();
    const short = 'short-but-secret-key-123';
    const error = await startService(
      'session-service',
      env({ API_KEYS: `acme:${secret},globex:${short},bad tenant!:${key()}` }),
      20_000,
    ).then(
      () => new Error('expected the boot to be refused'),
      (e: Error) => e,
    );
    expect(error.message).toMatch(/API_KEYS: entry 2: a key is at least 32/);
    expect(error.message).toMatch(/API_KEYS: entry 3: a tenant is 1-200/);
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain(short);

    const service = await startService('session-service', env({ API_KEYS: `acme:${secret}`, LOG_LEVEL: 'verbose' }));
    try {
      await fetch(`${service.url}/v1/sessions/x/stats`, { headers: bearer(secret) });
      await fetch(`${service.url}/v1/sessions/x/stats`, { headers: bearer(`${secret}0`) });
      expect(service.output()).toMatch(/API keys required: 1 key\(s\) for 1 tenant\(s\)/);
      expect(service.output()).not.toContain(secret.slice(0, 16));
    } finally {
      await service.stop();
    }
  });

  it('warns loudly at boot when authentication is off', async () => {
    const service = await startService('session-service', env({ AUTH_MODE: 'none' }));
    try {
      expect(service.output()).toMatch(/AUTHENTICATION IS OFF/);
    } finally {
      await service.stop();
    }
  });
});
