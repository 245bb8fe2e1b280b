import { createEvent, LIMITS, type AnyEvent } from '@ctxledger/contracts';
import {
  configure,
  ENGINE_VERSION,
  findToolPairViolations,
  type ChatMessage,
  type CompactionBlock,
} from '@ctxledger/context-engine';
import { testStack, unique } from '../support/stack-settings';
import {
  dropDatabase,
  RawProducer,
  startSessionService,
  TopicReader,
  type SessionServiceUnderTest,
} from './session-harness';

const sid = (name: string) => unique(name);

function blockEvent(
  sessionId: string,
  id: string,
  from: number,
  to: number,
  summary: string,
  tenant = 'default',
): AnyEvent {
  const block: CompactionBlock = {
    id,
    sessionId,
    stage: 'summary',
    range: { from, to },
    edits: [{ from, to, replacement: [{ role: 'user', content: summary }] }],
    tokensBefore: 200,
    tokensAfter: 20,
    tokensSaved: 180,
    basedOnPosition: to,
    engineVersion: ENGINE_VERSION,
  };
  return createEvent('block.created', sessionId, { block } as never, { tenant });
}

describe('session service HTTP API (real Kafka + MongoDB-wire)', () => {
  let api: SessionServiceUnderTest;
  let producer: RawProducer;
  let commands: TopicReader;

  beforeAll(async () => {
    api = await startSessionService('session-api', testStack(), { HTTP_BODY_LIMIT_BYTES: '200000' });
    producer = new RawProducer(testStack().brokers);
    await producer.connect();
    commands = new TopicReader(testStack().brokers, api.topics.sessionEvents);
    await commands.start();
  });

  afterAll(async () => {
    await api?.service.stop();
    await producer?.disconnect();
    await commands?.stop();
    if (api) await dropDatabase(testStack().mongoUri, api.database);
  });

  it('appends one message and a batch, and reads its own writes with `after`', async () => {
    const s = sid('ryw');
    const one = await api.call('POST', `/v1/sessions/${s}/messages`, { role: 'user', content: 'hello' });
    expect(one.status).toBe(202);
    expect(one.body).toMatchObject({
      sessionId: s,
      accepted: 1,
      offsets: [expect.any(String)],
      waitToken: one.body.offsets[0],
    });
    const batch = await api.call('POST', `/v1/sessions/${s}/messages`, {
      messages: [
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' }] },
        { role: 'tool', content: 'export const a = 1;', toolCallId: 'c1', toolName: 'read_file' },
        { role: 'assistant', content: 'a is 1' },
      ],
    });
    expect(batch.status).toBe(202);
    expect(batch.body.offsets).toHaveLength(3);
    expect(BigInt(batch.body.offsets[2]) - BigInt(batch.body.offsets[0])).toBe(2n); // one request, consecutive offsets

    // Immediately: the read waits for the projection to reach the write.
    const read = await api.call('GET', `/v1/sessions/${s}/history?after=${batch.body.waitToken}&format=openai`);
    expect(read.status).toBe(200);
    expect(read.body.messages).toEqual([
      { role: 'user', content: 'hello' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
      },
      { role: 'tool', content: 'export const a = 1;', tool_call_id: 'c1' },
      { role: 'assistant', content: 'a is 1' },
    ]);
    expect(read.body).toMatchObject({ view: 'effective', fits: true, compactedOnRead: false, originalMessageCount: 4 });
    expect(read.body.tokens).toBeGreaterThan(0);
    expect(read.body.usageRatio).toBeCloseTo(read.body.tokens / read.body.budget, 3);
    expect(BigInt(read.body.projectedOffset)).toBeGreaterThanOrEqual(BigInt(batch.body.waitToken));

    const anthropic = await api.call('GET', `/v1/sessions/${s}/history?format=anthropic`);
    expect(anthropic.body.messages[1].content[0]).toMatchObject({
      type: 'tool_use',
      id: 'c1',
      input: { path: 'a.ts' },
    });
  });

  it('answers a repeated query from what it kept, per query, and anew after a write', async () => {
    const s = sid('kept');
    const write = await api.call('POST', `/v1/sessions/${s}/messages`, {
      messages: [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
      ],
    });
    const queries = ['format=openai', 'format=anthropic', 'format=generic&view=full', 'format=openai&budget=50000'];
    const first = new Map<string, unknown>();
    for (const q of queries) {
      const r = await api.call('GET', `/v1/sessions/${s}/history?${q}&after=${write.body.waitToken}`);
      expect(r.status).toBe(200);
      first.set(q, r.body);
    }
    expect(first.get('format=openai')).not.toEqual(first.get('format=anthropic'));
    expect((first.get('format=openai&budget=50000') as { budget: number }).budget).toBe(50_000);
    // Interleaved re-reads of the unchanged session: each query gets its own answer back, never another's.
    for (const q of [...queries, ...queries.slice().reverse()]) {
      const again = await api.call('GET', `/v1/sessions/${s}/history?${q}`);
      expect(again.body).toEqual(first.get(q));
    }
    expect(
      (await api.call('GET', `/v1/sessions/${s}/history?format=openai`, undefined, { 'X-Tenant': 'acme' })).status,
    ).toBe(404);

    const next = await api.call('POST', `/v1/sessions/${s}/messages`, { role: 'user', content: 'second question' });
    const after = await api.call('GET', `/v1/sessions/${s}/history?format=openai&after=${next.body.waitToken}`);
    expect(after.body.messages).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'second question' },
    ]);
    expect(after.body.projectedOffset).not.toBe(
      (first.get('format=openai') as { projectedOffset: string }).projectedOffset,
    );
  });

  it('a retried POST with the same Idempotency-Key adds nothing', async () => {
    const s = sid('idem');
    const body = {
      messages: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
      ],
    };
    const first = await api.call('POST', `/v1/sessions/${s}/messages`, body, { 'Idempotency-Key': 'req-1' });
    expect(first.body.clientMessageIds).toEqual(['req-1:0', 'req-1:1']);
    const again = await api.call('POST', `/v1/sessions/${s}/messages`, body, { 'Idempotency-Key': 'req-1' });
    expect(again.status).toBe(202);
    const explicit = { role: 'user', content: 'three', clientMessageId: 'mine-3' };
    await api.call('POST', `/v1/sessions/${s}/messages`, explicit);
    const last = await api.call('POST', `/v1/sessions/${s}/messages`, explicit);
    const read = await api.call('GET', `/v1/sessions/${s}/history?after=${last.body.waitToken}`);
    expect(read.body.messages.map((m: { content: string }) => m.content)).toEqual(['one', 'two', 'three']);
    const stats = await api.call('GET', `/v1/sessions/${s}/stats`);
    expect(stats.body).toMatchObject({ messageCount: 3, projectedOffset: last.body.waitToken });
  });

  it('answers 400 naming the field for bad input, 413 over the body limit', async () => {
    const s = sid('bad');
    const bad = async (body: unknown, path = `/v1/sessions/${s}/messages`, headers?: Record<string, string>) => {
      const res = await api.call('POST', path, body, headers);
      expect(res.status).toBe(400);
      return JSON.stringify(res.body.message);
    };
    expect(await bad({ role: 'robot', content: 'x' })).toMatch(/role: must be one of/);
    expect(await bad({ role: 'user' })).toMatch(/content: must be a string/);
    expect(await bad({ role: 'user', content: 'x', extra: 1 })).toMatch(/extra: property extra should not exist/);
    expect(await bad({ role: 'tool', content: 'x' })).toMatch(/toolCallId: is required on tool messages/);
    expect(
      await bad({
        messages: [
          { role: 'user', content: 'ok' },
          { role: 'user', content: 5 },
        ],
      }),
    ).toMatch(/messages\.1\.content: must be a string/);
    expect(await bad({ messages: [] })).toMatch(/messages: must contain at least 1 elements/);
    const tooMany = Array.from({ length: LIMITS.maxBatchMessages + 1 }, () => ({ role: 'user', content: 'x' }));
    expect(await bad({ messages: tooMany })).toMatch(/messages: must contain no more than 500 elements/);
    expect(await bad({ role: 'user', content: 'x', clientMessageId: 'a.b' })).toMatch(
      /clientMessageId: may contain only/,
    );
    expect(
      await bad({ role: 'user', content: 'x' }, `/v1/sessions/${encodeURIComponent('{"$gt":""}')}/messages`),
    ).toMatch(/sessionId/);
    expect(await bad({ role: 'user', content: 'x' }, `/v1/sessions/a.b/messages`)).toMatch(/sessionId/);
    expect(await bad({ role: 'user', content: 'x' }, undefined, { 'Idempotency-Key': 'has space' })).toMatch(
      /Idempotency-Key/,
    );
    expect(await bad({ role: 'user', content: 'x' }, undefined, { 'X-Tenant': '$where' })).toMatch(/X-Tenant/);
    expect(await bad('{"role": "user", ', undefined)).toMatch(/JSON/i);
    const config = await api.call('PUT', `/v1/sessions/${s}/config`, { contextWindow: 10, threshold: 2 });
    expect(config.status).toBe(400);
    expect(JSON.stringify(config.body.message)).toMatch(
      /contextWindow: must not be less than 256.*threshold: must not be greater than 1/,
    );
    const policy = await api.call('PUT', `/v1/sessions/${s}/config`, { policy: { targetRatio: 0.95 } });
    expect(policy.status).toBe(400);
    expect(policy.body.message).toEqual([
      expect.stringMatching(/^policy\.targetRatio: 0\.95 is above the threshold 0\.8 /),
    ]);
    const query = await api.call('GET', `/v1/sessions/${s}/history?view=compact&format=xml&after=abc&budget=-1`);
    expect(query.status).toBe(400);
    for (const field of ['view', 'format', 'budget', 'after'])
      expect(JSON.stringify(query.body.message)).toContain(`${field}: `);

    const big = await api.call('POST', `/v1/sessions/${s}/messages`, { role: 'user', content: 'x'.repeat(250_000) });
    expect(big.status).toBe(413);
  });

  it('never shows a session to another tenant (404), and refuses their writes to it', async () => {
    const s = sid('tenant');
    const w = await api.call(
      'POST',
      `/v1/sessions/${s}/messages`,
      { role: 'user', content: 'secret of acme' },
      { 'X-Tenant': 'acme' },
    );
    expect(
      (await api.call('GET', `/v1/sessions/${s}/history?after=${w.body.waitToken}`, undefined, { 'X-Tenant': 'acme' }))
        .status,
    ).toBe(200);
    for (const path of ['history', 'stats', 'blocks']) {
      expect((await api.call('GET', `/v1/sessions/${s}/${path}`, undefined, { 'X-Tenant': 'globex' })).status).toBe(
        404,
      );
      expect((await api.call('GET', `/v1/sessions/${s}/${path}`)).status).toBe(404); // the default tenant
    }
    expect(
      (await api.call('POST', `/v1/sessions/${s}/messages`, { role: 'user', content: 'x' }, { 'X-Tenant': 'globex' }))
        .status,
    ).toBe(404);
    expect((await api.call('POST', `/v1/sessions/${s}/compactions`, undefined, { 'X-Tenant': 'globex' })).status).toBe(
      404,
    );
    expect((await api.call('PUT', `/v1/sessions/${s}/config`, { model: 'x' }, { 'X-Tenant': 'globex' })).status).toBe(
      404,
    );
  });

  it('configures a session, requests compactions, classifies overflow reports', async () => {
    const s = sid('cmd');
    const cfg = await api.call('PUT', `/v1/sessions/${s}/config`, {
      provider: 'anthropic',
      contextWindow: 50_000,
      maxOutputTokens: 4000,
      systemPrompt: 'You are terse.',
    });
    expect(cfg.status).toBe(202);
    const stats = await api.call('GET', `/v1/sessions/${s}/stats?after=${cfg.body.waitToken}`);
    expect(stats.body).toMatchObject({ contextWindow: 50_000, messageCount: 0 });
    expect(stats.body.historyBudget).toBe(
      configure({
        provider: 'anthropic',
        contextWindow: 50_000,
        maxOutputTokens: 4000,
        systemPromptTokens: stats.body.contextWindow - 4000 - stats.body.historyBudget,
      }).budget.historyBudget,
    );

    const manual = await api.call('POST', `/v1/sessions/${s}/compactions`);
    expect(manual.status).toBe(202);
    await commands.waitFor(
      (e) => e.sessionId === s && e.type === 'compaction.requested' && e.data.trigger === 'manual',
      'manual compaction',
    );

    const rate = await api.call('POST', `/v1/sessions/${s}/overflow`, {
      errorText:
        '429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}',
    });
    expect(rate.status).toBe(422);
    expect(rate.body.message).toMatch(/not a context overflow but a rate limit/);
    expect(rate.body.classification.kind).toBe('rate-limit');

    const errorText =
      '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}';
    const overflow = await api.call('POST', `/v1/sessions/${s}/overflow`, { errorText });
    expect(overflow.status).toBe(202);
    expect(overflow.body).toMatchObject({ kind: 'overflow', actualTokens: 210_000, limitTokens: 200_000 });
    const event = await commands.waitFor(
      (e) => e.sessionId === s && e.type === 'compaction.requested' && e.data.trigger === 'overflow',
      'overflow compaction',
    );
    expect(event.type === 'compaction.requested' && event.data.errorText).toBe(errorText);
    expect((await api.call('POST', `/v1/sessions/${s}/overflow`, {})).status).toBe(400);
    expect((await api.call('POST', `/v1/sessions/${sid('none')}/compactions`)).status).toBe(404);
  });

  it('overlays blocks (even one that arrived before its messages), lists them, reverts through the compaction service', async () => {
    const s = sid('blocks');
    // The block is published before the messages it covers exist.
    await producer.send(api.topics.blocks, [blockEvent(s, 'blk-1', 0, 1, 'Summary: the user said hello twice.')]);
    const w = await api.call('POST', `/v1/sessions/${s}/messages`, {
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hello to you' },
        { role: 'user', content: 'what now?' },
      ],
    });
    const blocks = await (async () => {
      for (;;) {
        const res = await api.call('GET', `/v1/sessions/${s}/blocks?after=${w.body.waitToken}`);
        if (res.body.blocks?.length) return res.body.blocks;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    expect(blocks).toEqual([
      expect.objectContaining({ id: 'blk-1', stage: 'summary', active: true, applicable: true, tokensSaved: 180 }),
    ]);
    const effective = await api.call('GET', `/v1/sessions/${s}/history`);
    expect(effective.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'Summary: the user said hello twice.',
      'what now?',
    ]);
    expect(effective.body.activeBlocks).toBe(1);
    const full = await api.call('GET', `/v1/sessions/${s}/history?view=full`);
    expect(full.body.messages).toHaveLength(3);
    const stats = await api.call('GET', `/v1/sessions/${s}/stats`);
    expect(stats.body).toMatchObject({
      messageCount: 3,
      effectiveMessageCount: 2,
      blocks: { total: 1, active: 1, reverted: 0, pending: 0 },
    });
    expect(stats.body.savedByStage.summary).toBe(stats.body.rawTokens - stats.body.effectiveTokens);

    expect((await api.call('POST', `/v1/sessions/${s}/blocks/nope/revert`)).status).toBe(404);
    const revert = await api.call('POST', `/v1/sessions/${s}/blocks/blk-1/revert`);
    expect(revert.status).toBe(202);
    await commands.waitFor(
      (e) => e.sessionId === s && e.type === 'block-revert.requested' && e.data.blockId === 'blk-1',
      'revert request',
    );
    // What the compaction service answers: the block stream says it is reverted; the originals are back.
    await producer.send(api.topics.blocks, [createEvent('block.reverted', s, { blockId: 'blk-1' })]);
    for (;;) {
      const res = await api.call('GET', `/v1/sessions/${s}/history`);
      if (res.body.activeBlocks === 0) {
        expect(res.body.messages.map((m: { content: string }) => m.content)).toEqual([
          'hello',
          'hello to you',
          'what now?',
        ]);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it('never silently over: a stored view over the budget is compacted on read, tool pairs kept', async () => {
    const s = sid('over');
    const cfg = await api.call('PUT', `/v1/sessions/${s}/config`, {
      provider: 'openai',
      contextWindow: 6000,
      maxOutputTokens: 1000,
    });
    expect(cfg.status).toBe(202);
    const messages: ChatMessage[] = [];
    for (let t = 0; t < 20; t++) {
      messages.push({ role: 'user', content: `step ${t}: read file ${t}` });
      messages.push({
        role: 'assistant',
        content: '',
        toolCalls: [{ id: `c${t}`, name: 'read_file', arguments: `{"path":"f${t}.ts"}` }],
      });
      messages.push({ role: 'tool', content: `line ${t} `.repeat(400), toolCallId: `c${t}`, toolName: 'read_file' });
      messages.push({ role: 'assistant', content: `file ${t} read` });
    }
    const w = await api.call('POST', `/v1/sessions/${s}/messages`, { messages });
    expect(w.status).toBe(202);
    const full = await api.call('GET', `/v1/sessions/${s}/history?view=full&after=${w.body.waitToken}`);
    expect(full.body.fits).toBe(false);
    expect(full.body.tokens).toBeGreaterThan(full.body.budget);

    const read = await api.call('GET', `/v1/sessions/${s}/history?format=generic`);
    expect(read.body).toMatchObject({ compactedOnRead: true, fits: true });
    expect(read.body.tokens).toBeLessThanOrEqual(read.body.budget);
    expect(read.body.onReadStages.length).toBeGreaterThan(0);
    const generic = read.body.messages as ChatMessage[];
    expect(findToolPairViolations(generic.map((m) => ({ ...m, content: m.content ?? '' })))).toEqual([]);
    expect(generic.at(-1)).toMatchObject({ role: 'assistant', content: 'file 19 read' });
    // Nothing was published by the read: no block exists.
    expect((await api.call('GET', `/v1/sessions/${s}/blocks`)).body.blocks).toEqual([]);

    const tight = await api.call('GET', `/v1/sessions/${s}/history?budget=30`);
    expect(tight.body).toMatchObject({ budget: 30, fits: false });
    expect(tight.body.reason).toEqual(expect.any(String));
  });

  it('answers 504 naming the offset when `after` is not reached in time', async () => {
    const s = sid('late');
    const w = await api.call('POST', `/v1/sessions/${s}/messages`, { role: 'user', content: 'x' });
    const res = await api.call('GET', `/v1/sessions/${s}/history?after=${BigInt(w.body.waitToken) + 1000n}&waitMs=300`);
    expect(res.status).toBe(504);
    expect(res.body.message).toMatch(
      new RegExp(
        `waited 300 ms for the read model of session ${s} to reach offset \\d+; it has projected up to offset ${w.body.waitToken}`,
      ),
    );
    expect((await api.call('GET', `/v1/sessions/${sid('never')}/history?after=0&waitMs=100`)).status).toBe(504);
    expect((await api.call('GET', `/v1/sessions/${sid('never')}/history`)).status).toBe(404);
  });

  it('serves its OpenAPI document and the projection metrics', async () => {
    const doc = await api.call('GET', '/v1/docs-json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/sessions/{sessionId}/messages',
        '/v1/sessions/{sessionId}/config',
        '/v1/sessions/{sessionId}/history',
        '/v1/sessions/{sessionId}/stats',
        '/v1/sessions/{sessionId}/blocks',
        '/v1/sessions/{sessionId}/compactions',
        '/v1/sessions/{sessionId}/overflow',
        '/v1/sessions/{sessionId}/blocks/{blockId}/revert',
      ]),
    );
    expect(doc.body.components.schemas.AppendMessageDto.properties.role.enum).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
    ]);
    expect((await fetch(`${api.service.url}/v1/docs`)).status).toBe(200);
    const metrics = await (await fetch(`${api.service.url}/metrics`)).text();
    expect(metrics).toMatch(/ctxledger_projection_lag_events\{stream="sessionEvents",service="session-service"\} \d+/);
    expect(metrics).toMatch(/ctxledger_projection_lag_seconds\{stream="blocks",service="session-service"\} [\d.]+/);
    expect(metrics).toMatch(/ctxledger_events_consumed_total\{topic="[^"]+\.session-events",outcome="processed"/);
    expect(metrics).toMatch(
      /ctxledger_http_request_duration_seconds_count\{[^}]*method="GET",route="\/v1\/sessions\/:sessionId\/history"/,
    );
  });
});
