import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { testStack, unique } from '../support/stack-settings';
import { dropDatabase, RawProducer, startSessionService, until, type SessionServiceUnderTest } from './session-harness';

const sid = (name: string) => unique(name);
const contents = (body: { messages: { content: string }[] }) => body.messages.map((m) => m.content);

/**
 * What the write side answers when a request is not what it seems: a reused Idempotency-Key with another body,
 * a body that is not UTF-8 or not JSON, and an event published twice on Kafka.
 */
describe('session service: idempotency conflicts, bodies it refuses, events published twice (real Kafka + MongoDB-wire)', () => {
  let api: SessionServiceUnderTest;
  let producer: RawProducer;

  beforeAll(async () => {
    api = await startSessionService('session-writes', testStack());
    producer = new RawProducer(testStack().brokers);
    await producer.connect();
  });

  afterAll(async () => {
    await api?.service.stop();
    await producer?.disconnect();
    if (api) await dropDatabase(testStack().mongoUri, api.database);
  });

  /** POST of raw bytes, as a client that does not go through JSON.stringify sends them. */
  const post = async (path: string, body: Buffer | string, contentType?: string, method = 'POST') => {
    const res = await fetch(`${api.service.url}${path}`, {
      method,
      headers: contentType === undefined ? {} : { 'content-type': contentType },
      body,
    });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
  };

  it('answers 409 naming the Idempotency-Key reused with another body; the same body stays a replay, also after a restart', async () => {
    const s = sid('idem-conflict');
    const body = { messages: [{ role: 'user', content: 'pay 10 EUR' }] };
    const first = await api.call('POST', `/v1/sessions/${s}/messages`, body, { 'Idempotency-Key': 'k-1' });
    expect(first.status).toBe(202);

    const other = { messages: [{ role: 'user', content: 'pay 1000 EUR' }] };
    const conflict = await api.call('POST', `/v1/sessions/${s}/messages`, other, { 'Idempotency-Key': 'k-1' });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ statusCode: 409, idempotencyKey: 'k-1' });
    expect(conflict.body.message).toMatch(/Idempotency-Key "k-1" .*another body/);
    // One more message is another body too.
    const longer = { messages: [...body.messages, { role: 'assistant', content: 'done' }] };
    expect((await api.call('POST', `/v1/sessions/${s}/messages`, longer, { 'Idempotency-Key': 'k-1' })).status).toBe(
      409,
    );

    // The same body (as one message instead of a batch of one, keys in another order) is a replay: 202.
    const replay = await api.call(
      'POST',
      `/v1/sessions/${s}/messages`,
      { content: 'pay 10 EUR', role: 'user' },
      { 'Idempotency-Key': 'k-1' },
    );
    expect(replay.status).toBe(202);
    expect(replay.body.clientMessageIds).toEqual(['k-1:0']);

    // The key's fingerprint is stored, not kept in the process: a restarted instance answers the same.
    await api.restart();
    const afterRestart = await api.call('POST', `/v1/sessions/${s}/messages`, other, { 'Idempotency-Key': 'k-1' });
    expect(afterRestart.status).toBe(409);
    expect((await api.call('POST', `/v1/sessions/${s}/messages`, body, { 'Idempotency-Key': 'k-1' })).status).toBe(202);
    // A key belongs to its session: the same key on another session is another request.
    expect((await api.call('POST', `/v1/sessions/${s}-b/messages`, other, { 'Idempotency-Key': 'k-1' })).status).toBe(
      202,
    );

    const read = await api.call('GET', `/v1/sessions/${s}/history?after=${replay.body.waitToken}&view=full`);
    expect(contents(read.body)).toEqual(['pay 10 EUR']);
    // Every answer says which key it was taken under.
    expect([first.body.idempotencyKey, replay.body.idempotencyKey]).toEqual(['k-1', 'k-1']);
  });

  it('frees a key whose request was refused before anything was sent (413): a corrected body under it is taken', async () => {
    const s = sid('idem-refused');
    const big = { messages: [1, 2, 3].map((i) => ({ role: 'user', content: `${i}`.repeat(399_000) })) };
    const refused = await api.call('POST', `/v1/sessions/${s}/messages`, big, { 'Idempotency-Key': 'k-big' });
    expect(refused.status).toBe(413);
    const smaller = { messages: big.messages.slice(0, 1) };
    const taken = await api.call('POST', `/v1/sessions/${s}/messages`, smaller, { 'Idempotency-Key': 'k-big' });
    expect(taken.status).toBe(202);
  });

  it('derives the key from the clientMessageIds when no Idempotency-Key is sent: another body under them is 409', async () => {
    const s = sid('cmid-conflict');
    const body = {
      messages: [
        { role: 'user', content: 'question', clientMessageId: 'm-1' },
        { role: 'assistant', content: 'answer', clientMessageId: 'm-2' },
      ],
    };
    const first = await api.call('POST', `/v1/sessions/${s}/messages`, body);
    expect(first.status).toBe(202);
    const again = await api.call('POST', `/v1/sessions/${s}/messages`, body);
    expect(again.status).toBe(202);

    const changed = structuredClone(body);
    changed.messages[1]!.content = 'another answer';
    const conflict = await api.call('POST', `/v1/sessions/${s}/messages`, changed);
    expect(conflict.status).toBe(409);
    expect(first.body.idempotencyKey).toMatch(/^cmid-/);
    expect(again.body.idempotencyKey).toBe(first.body.idempotencyKey);
    expect(conflict.body.idempotencyKey).toBe(first.body.idempotencyKey);
    expect(conflict.body.message).toMatch(/clientMessageIds/);
    // Sending the derived key as the header names the same request.
    const asHeader = await api.call('POST', `/v1/sessions/${s}/messages`, changed, {
      'Idempotency-Key': first.body.idempotencyKey,
    });
    expect(asHeader.status).toBe(409);

    // A request without a key and without clientMessageIds has none.
    const keyless = await api.call('POST', `/v1/sessions/${s}/messages`, { role: 'user', content: 'no key' });
    expect(keyless.status).toBe(202);
    expect(keyless.body.idempotencyKey).toBeNull();
    const read = await api.call('GET', `/v1/sessions/${s}/history?after=${keyless.body.waitToken}&view=full`);
    expect(contents(read.body)).toEqual(['question', 'answer', 'no key']);
  });

  it('refuses a body that is not UTF-8 with 400 naming where, instead of storing U+FFFD', async () => {
    const s = sid('utf8');
    const bytes = (before: string, after: string) =>
      Buffer.concat([Buffer.from(before), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(after)]);
    const one = await post(
      `/v1/sessions/${s}/messages`,
      bytes('{"role":"user","content":"caf', '"}'),
      'application/json',
    );
    expect(one.status).toBe(400);
    expect(JSON.stringify(one.body.message)).toMatch(/content: not valid UTF-8 \(byte 29 of the body\)/);
    const batch = await post(
      `/v1/sessions/${s}/messages`,
      bytes('{"messages":[{"role":"user","content":"ok"},{"role":"user","content":"x', '"}]}'),
      'application/json; charset=utf-8',
    );
    expect(batch.status).toBe(400);
    expect(JSON.stringify(batch.body.message)).toMatch(/messages\.1\.content: not valid UTF-8/);

    // Nothing was stored; valid UTF-8 (any script, 4-byte sequences included) goes through unchanged.
    const fine = await post(
      `/v1/sessions/${s}/messages`,
      Buffer.from(JSON.stringify({ role: 'user', content: 'café — 日本 😀' })),
      'application/json',
    );
    expect(fine.status).toBe(202);
    const read = await api.call('GET', `/v1/sessions/${s}/history?after=${fine.body.waitToken}&view=full`);
    expect(contents(read.body)).toEqual(['café — 日本 😀']);
  });

  it('answers 415 to a body that is not JSON', async () => {
    const s = sid('media');
    const json = JSON.stringify({ role: 'user', content: 'hello' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', undefined]) {
      const res = await post(`/v1/sessions/${s}/messages`, json, type);
      expect({ type, status: res.status }).toEqual({ type, status: 415 });
      expect(res.body.message).toMatch(/application\/json/);
    }
    expect((await post(`/v1/sessions/${s}/config`, '{"model":"x"}', 'text/plain', 'PUT')).status).toBe(415);
    const accepted = await post(`/v1/sessions/${s}/messages`, json, 'application/json; charset=utf-8');
    expect(accepted.status).toBe(202);
    // A POST without a body needs no type (once the session is projected, it exists).
    await api.call('GET', `/v1/sessions/${s}/stats?after=${accepted.body.waitToken}`);
    const compact = await fetch(`${api.service.url}/v1/sessions/${s}/compactions`, { method: 'POST' });
    expect(compact.status).toBe(202);
  });

  it('documents 409, 415 and the 503 of an unknown outcome (Retry-After, the key to retry with) in its OpenAPI description', async () => {
    const doc = (await api.call('GET', '/v1/docs-json')).body;
    const append = doc.paths['/v1/sessions/{sessionId}/messages'].post;
    expect(Object.keys(append.responses)).toEqual(expect.arrayContaining(['202', '400', '409', '413', '415', '503']));
    expect(append.responses['503'].headers['Retry-After']).toBeDefined();
    const unknown = doc.components.schemas.OutcomeUnknownDto.properties;
    expect(unknown.outcome.enum).toEqual(['unknown']);
    expect(Object.keys(unknown)).toEqual(expect.arrayContaining(['idempotencyKey', 'retryAfterSeconds', 'message']));
    expect(doc.components.schemas.AppendAcceptedDto.properties.idempotencyKey).toBeDefined();
    expect(append.description).toMatch(/outcome: "unknown"/);
  });

  it('stores an event published twice with the same eventId once, also when the copy comes after a restart', async () => {
    const s = sid('event-twice');
    const event = (eventId: string, content: string): AnyEvent =>
      createEvent('message.appended', s, { role: 'user', content } as never, { eventId });
    const a = event(`${s}-a`, 'first');
    const b = event(`${s}-b`, 'second');
    // Twice in one request, and once more in another.
    await producer.send(api.topics.sessionEvents, [a, a, b]);
    const [offset] = await producer.send(api.topics.sessionEvents, [b]);
    let read = await api.call('GET', `/v1/sessions/${s}/history?after=${offset}&view=full`);
    expect(contents(read.body)).toEqual(['first', 'second']);

    // A fresh instance knows the event ids from the stored messages.
    await api.restart();
    const [late] = await producer.send(api.topics.sessionEvents, [a, event(`${s}-c`, 'third')]);
    read = await until(async () => {
      const res = await api.call('GET', `/v1/sessions/${s}/history?after=${late}&view=full`);
      return res.status === 200 ? res : undefined;
    }, 'the read after the restart');
    expect(contents(read.body)).toEqual(['first', 'second', 'third']);
    const stats = await api.call('GET', `/v1/sessions/${s}/stats`);
    expect(stats.body.messageCount).toBe(3);
  });
});
