import mongoose from 'mongoose';
import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { ENGINE_VERSION, type ChatMessage, type CompactionBlock } from '@ctxledger/context-engine';
import { testKafka, TopicCollector } from '../support/kafka-helpers';
import { startService, type RunningService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';
import {
  dropDatabase,
  RawProducer,
  startSessionService,
  until,
  withDatabase,
  type SessionServiceUnderTest,
} from './session-harness';

/**
 * Issue 15, round 2: a configuration, a block or a tool result that the services used to take in and then
 * serve wrongly (the 128k default for a declared 50k window, a 500 on a stored block, an orphan result a
 * provider rejects), on the real stack: the session service and the compaction service on topics of their own.
 */

const metricValue = (text: string, name: string, labels: Record<string, string> = {}): number =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);

/** Turns of a coding agent: a request, a file read with a large result, a short reply. */
function readingTurns(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'user', content: `step ${t}: read file ${t}` });
    messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `c${t}`, name: 'read_file', arguments: `{"path":"src/f${t}.ts"}` }],
    });
    messages.push({ role: 'tool', content: `line ${t} `.repeat(400), toolCallId: `c${t}`, toolName: 'read_file' });
    messages.push({ role: 'assistant', content: `file ${t} read` });
  }
  return messages;
}

function rawBlock(sessionId: string, id: string, overrides: Partial<CompactionBlock>): CompactionBlock {
  return {
    id,
    sessionId,
    stage: 'summary',
    range: { from: 0, to: 1 },
    edits: [{ from: 0, to: 1, replacement: [{ role: 'user', content: `FORGED ${id}` }] }],
    tokensBefore: 200,
    tokensAfter: 20,
    tokensSaved: 180,
    basedOnPosition: 2,
    engineVersion: ENGINE_VERSION,
    ...overrides,
  };
}

describe('issue 15: configurations, blocks and tool pairs as served (real Kafka + MongoDB-wire)', () => {
  const stack = testStack();
  const kafka = testKafka('read-reliability-test');
  let api: SessionServiceUnderTest;
  let compaction: RunningService;
  let producer: RawProducer;
  let deadLetters: TopicCollector;
  let blocks: TopicCollector;

  const contents = (body: { messages: { content?: unknown }[] }) => JSON.stringify(body.messages.map((m) => m.content));
  const deadLetterOf = (sessionId: string, type: string) =>
    deadLetters.events.find(
      (e) =>
        e.type === 'event.dead-lettered' && e.sessionId === sessionId && e.data.payload.includes(`"type":"${type}"`),
    ) as Extract<AnyEvent, { type: 'event.dead-lettered' }> | undefined;

  beforeAll(async () => {
    api = await startSessionService('read-reliability', stack);
    compaction = await startService('compaction-service', {
      TOPIC_PREFIX: api.prefix,
      KAFKA_BROKERS: stack.brokers.join(','),
      SUMMARY_TIMEOUT_MS: '1000',
    });
    producer = new RawProducer(stack.brokers);
    await producer.connect();
    deadLetters = await new TopicCollector(kafka, api.topics.deadLetter, { tolerant: true }).start();
    blocks = await new TopicCollector(kafka, api.topics.blocks, { tolerant: true }).start();
  });

  afterAll(async () => {
    await compaction?.stop();
    await api?.service.stop();
    await producer?.disconnect();
    await deadLetters?.stop();
    await blocks?.stop();
    if (api) await dropDatabase(stack.mongoUri, api.database);
  });

  describe('item 2: a low threshold is applied on both paths, a contradictory policy refused on both alike', () => {
    it('Kafka: threshold 0.3 on a 50k window makes a budget (target derived below it) and the compaction service compacts at it', async () => {
      const s = unique('low');
      const [configured] = await producer.send(api.topics.sessionEvents, [
        createEvent('session.configured', s, {
          provider: 'anthropic',
          contextWindow: 50_000,
          threshold: 0.3,
          policy: { summaries: 'off' },
        }),
      ]);
      const stats = await api.call('GET', `/v1/sessions/${s}/stats?after=${configured}`);
      expect(stats.status).toBe(200);
      expect(stats.body.contextWindow).toBe(50_000);
      expect(stats.body.thresholdTokens).toBe(Math.floor(stats.body.historyBudget * 0.3));
      expect(stats.body.targetTokens).toBeLessThan(stats.body.thresholdTokens);
      expect(stats.body.config).toMatchObject({ requested: { contextWindow: 50_000, threshold: 0.3 } });
      expect(stats.body.config.thresholdRatio).toBe(0.3);
      expect(stats.body.config.targetRatio).toBeLessThan(0.3);
      expect(stats.body.refusedConfig).toBeUndefined();

      // Over 0.3 of the budget, under the default 0.8: only the configured threshold makes it compact.
      const messages = readingTurns(12);
      const offsets = await producer.send(
        api.topics.sessionEvents,
        messages.map((m) => createEvent('message.appended', s, m as never)),
      );
      const full = await api.call('GET', `/v1/sessions/${s}/stats?after=${offsets.at(-1)}`);
      expect(full.body.rawTokens).toBeGreaterThan(full.body.thresholdTokens);
      expect(full.body.rawTokens).toBeLessThan(Math.floor(full.body.historyBudget * 0.8));
      await blocks.until(
        (events) => events.some((e) => e.type === 'block.created' && e.sessionId === s),
        'a block of the low-threshold session',
      );
      expect(deadLetterOf(s, 'session.configured')).toBeUndefined();
    });

    it('HTTP and Kafka refuse a target above the threshold with the same message; stats say which configuration is in force', async () => {
      const s = unique('contra');
      const first = await api.call('PUT', `/v1/sessions/${s}/config`, { contextWindow: 40_000 });
      expect(first.status).toBe(202);
      const bad = { threshold: 0.5, policy: { targetRatio: 0.7 } };
      const refused = await api.call('PUT', `/v1/sessions/${s}/config`, bad);
      expect(refused.status).toBe(400);
      const [message] = refused.body.message as string[];
      expect(message).toMatch(/^policy\.targetRatio: /);
      expect(message).not.toMatch(/policy: policy/);

      const [offset] = await producer.send(api.topics.sessionEvents, [createEvent('session.configured', s, bad)]);
      await until(async () => deadLetterOf(s, 'session.configured'), 'the refused configuration dead-lettered');
      const reasons = deadLetters.events
        .filter((e) => e.sessionId === s && e.type === 'event.dead-lettered')
        .map((e) => (e as Extract<AnyEvent, { type: 'event.dead-lettered' }>).data.reason);
      for (const reason of reasons) expect(reason).toContain(message);

      const stats = await api.call('GET', `/v1/sessions/${s}/stats?after=${offset}`);
      expect(stats.status).toBe(200);
      expect(stats.body.contextWindow).toBe(40_000);
      expect(stats.body.config.requested).toEqual({ contextWindow: 40_000 });
      expect(stats.body.refusedConfig).toMatchObject({ offset, config: bad });
      expect(stats.body.refusedConfig.reason).toContain(message);
    });
  });

  describe('item 3: a structurally invalid block is dead-lettered, and a read never fails on a stored one', () => {
    it('dead-letters reversed, out-of-range and overlapping blocks; the session keeps serving, its revert path intact', async () => {
      const s = unique('badblk');
      const w = await api.call('POST', `/v1/sessions/${s}/messages`, {
        messages: [
          { role: 'user', content: 'hello' },
          { role: 'assistant', content: 'hi' },
          { role: 'user', content: 'go on' },
          { role: 'assistant', content: 'going' },
        ],
      });
      expect(w.status).toBe(202);
      const bad: CompactionBlock[] = [
        rawBlock(s, 'reversed', {
          range: { from: 2, to: 0 },
          edits: [{ from: 2, to: 0, replacement: [{ role: 'user', content: 'FORGED reversed' }] }],
        }),
        rawBlock(s, 'outside', {
          range: { from: 0, to: 1 },
          edits: [{ from: 0, to: 3, replacement: [{ role: 'user', content: 'FORGED outside' }] }],
        }),
        rawBlock(s, 'siblings', {
          range: { from: 0, to: 2 },
          edits: [
            { from: 0, to: 1, replacement: [{ role: 'user', content: 'FORGED a' }] },
            { from: 1, to: 2, replacement: [{ role: 'user', content: 'FORGED b' }] },
          ],
        }),
        rawBlock(s, 'ahead', { range: { from: 0, to: 1 }, basedOnPosition: 0 }),
        rawBlock(s, 'orphan-replacement', {
          edits: [{ from: 0, to: 1, replacement: [{ role: 'tool', content: 'FORGED tool', toolCallId: 'nobody' }] }],
        }),
      ];
      const valid = rawBlock(s, 'fine', { range: { from: 0, to: 1 }, basedOnPosition: 3 });
      await producer.send(
        api.topics.blocks,
        [...bad, valid].map((b) => createEvent('block.created', s, { block: b } as never)),
      );
      for (const b of bad) {
        const dl = await until(
          async () =>
            deadLetters.events.find(
              (e) => e.type === 'event.dead-lettered' && e.sessionId === s && e.data.payload.includes(`"id":"${b.id}"`),
            ),
          `block ${b.id} dead-lettered`,
        );
        expect((dl as Extract<AnyEvent, { type: 'event.dead-lettered' }>).data.reason).toMatch(/data\.block/);
      }
      const listed = await until(async () => {
        const res = await api.call('GET', `/v1/sessions/${s}/blocks?after=${w.body.waitToken}`);
        return res.body.blocks?.length ? res.body.blocks : undefined;
      }, 'the valid block projected');
      expect(listed.map((b: { id: string }) => b.id)).toEqual(['fine']);
      const stats = await api.call('GET', `/v1/sessions/${s}/stats`);
      expect(stats.status).toBe(200);
      const history = await api.call('GET', `/v1/sessions/${s}/history`);
      expect(history.status).toBe(200);
      expect(contents(history.body)).not.toMatch(/FORGED (reversed|outside|a|b|tool)/);
      expect(contents(history.body)).toMatch(/FORGED fine/);
    });

    it('a stored block that breaks the overlay is left out of the view, logged and counted, never a 500', async () => {
      const s = unique('stored');
      const w = await api.call('POST', `/v1/sessions/${s}/messages`, {
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
          { role: 'user', content: 'three' },
        ],
      });
      await api.call('GET', `/v1/sessions/${s}/stats?after=${w.body.waitToken}`);
      await producer.send(api.topics.blocks, [
        createEvent('block.created', s, { block: rawBlock(s, 'later', { basedOnPosition: 2 }) } as never),
      ]);
      await until(async () => {
        const res = await api.call('GET', `/v1/sessions/${s}/blocks`);
        return res.body.blocks?.length === 1 ? true : undefined;
      }, 'the valid block listed');
      // Written straight into the read model (an older version's projection, a manual edit): never validated.
      const connection = await mongoose.createConnection(withDatabase(stack.mongoUri, api.database)).asPromise();
      try {
        const block = rawBlock(s, 'stored-bad', {
          range: { from: 2, to: 0 },
          edits: [{ from: 2, to: 0, replacement: [{ role: 'user', content: 'FORGED stored' }] }],
        });
        await connection.db!.collection('session_blocks').insertOne({
          _id: `${s}/stored-bad` as never,
          sessionId: s,
          tenant: 'default',
          blockId: 'stored-bad',
          block,
          active: true,
          createdOffset: 0,
          createdAt: new Date().toISOString(),
        });
      } finally {
        await connection.close();
      }
      // A fresh instance reads the session's blocks from the database (the running one answers from memory).
      await api.restart();
      const listed = await api.call('GET', `/v1/sessions/${s}/blocks`);
      expect(listed.status).toBe(200);
      expect(listed.body.blocks).toHaveLength(2);
      expect(listed.body.blocks).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: 'stored-bad', skipped: expect.stringMatching(/range: from 2 is after to 0/) }),
          expect.objectContaining({ id: 'later' }),
        ]),
      );
      const stats = await api.call('GET', `/v1/sessions/${s}/stats`);
      expect(stats.status).toBe(200);
      expect(stats.body.blocks).toMatchObject({ skipped: 1 });
      for (const format of ['generic', 'openai', 'anthropic']) {
        const history = await api.call('GET', `/v1/sessions/${s}/history?format=${format}`);
        expect(history.status).toBe(200);
        expect(JSON.stringify(history.body.messages)).not.toContain('FORGED stored');
        expect(JSON.stringify(history.body.messages)).toContain('FORGED later');
      }
      const metrics = await (await fetch(`${api.service.url}/metrics`)).text();
      expect(metricValue(metrics, 'ctxledger_read_blocks_skipped_total')).toBeGreaterThan(0);
      expect(api.service.output()).toMatch(/stored-bad/);
    });
  });

  describe('item 4: no served view is one a provider would reject', () => {
    it('an orphan tool result is left out of the provider formats (and counted); a call without result gets one', async () => {
      const s = unique('orphan');
      const w = await api.call('POST', `/v1/sessions/${s}/messages`, {
        messages: [
          { role: 'user', content: 'look at it' },
          { role: 'tool', content: 'ORPHAN output', toolCallId: 'ghost', toolName: 'read' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'lost', name: 'read', arguments: '{"path":"a.ts"}' }],
          },
          { role: 'user', content: 'never mind, what now?' },
          { role: 'assistant', content: 'done' },
        ],
      });
      expect(w.status).toBe(202);
      const before = await (await fetch(`${api.service.url}/metrics`)).text();
      const openai = await api.call('GET', `/v1/sessions/${s}/history?format=openai&after=${w.body.waitToken}`);
      expect(openai.status).toBe(200);
      const toolMessages = openai.body.messages.filter((m: { role: string }) => m.role === 'tool');
      expect(toolMessages.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(['lost']);
      expect(JSON.stringify(openai.body.messages)).not.toContain('ORPHAN output');
      expect(openai.body.toolPairRepair).toMatchObject({ orphanResultsRemoved: 1, missingResultsSynthesized: 1 });

      const anthropic = await api.call('GET', `/v1/sessions/${s}/history?format=anthropic`);
      const blocksOf = anthropic.body.messages.flatMap((m: { content: { type: string }[] }) => m.content);
      expect(blocksOf.filter((b: { type: string }) => b.type === 'tool_result')).toEqual([
        expect.objectContaining({ tool_use_id: 'lost' }),
      ]);
      expect(JSON.stringify(anthropic.body.messages)).not.toContain('ORPHAN output');

      const after = await (await fetch(`${api.service.url}/metrics`)).text();
      const repaired = (kind: string) =>
        metricValue(after, 'ctxledger_tool_pair_repairs_total', { kind }) -
        metricValue(before, 'ctxledger_tool_pair_repairs_total', { kind });
      expect(repaired('orphan-result')).toBe(2);
      expect(repaired('missing-result')).toBe(2);
      // The full generic view is the record of what was appended: it keeps the orphan as it came.
      const record = await api.call('GET', `/v1/sessions/${s}/history?view=full&format=generic`);
      expect(JSON.stringify(record.body.messages)).toContain('ORPHAN output');
    });

    it('a call still waiting for its result at the end: kept in the generic view, answered in the provider ones', async () => {
      const s = unique('pending');
      const w = await api.call('POST', `/v1/sessions/${s}/messages`, {
        messages: [
          { role: 'user', content: 'run the tests' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'run1', name: 'bash', arguments: '{"cmd":"npm test"}' }],
          },
        ],
      });
      const generic = await api.call('GET', `/v1/sessions/${s}/history?after=${w.body.waitToken}`);
      expect(generic.body.messages).toHaveLength(2);
      expect(generic.body.toolPairRepair).toBeUndefined();
      const openai = await api.call('GET', `/v1/sessions/${s}/history?format=openai`);
      expect(openai.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'run1' });
      expect(openai.body.toolPairRepair).toMatchObject({ pendingResultsSynthesized: 1 });
    });
  });

  describe('item 7b: current savings by stage go down with a revert; the counter does not', () => {
    it('the gauge follows /stats savedByStage across a revert', async () => {
      const s = unique('saved');
      const [configured] = await producer.send(api.topics.sessionEvents, [
        createEvent('session.configured', s, {
          provider: 'openai',
          contextWindow: 12_000,
          maxOutputTokens: 1_000,
          policy: { summaries: 'off' },
        }),
      ]);
      await api.call('GET', `/v1/sessions/${s}/stats?after=${configured}`);
      const offsets = await producer.send(
        api.topics.sessionEvents,
        readingTurns(12).map((m) => createEvent('message.appended', s, m as never)),
      );
      await api.call('GET', `/v1/sessions/${s}/stats?after=${offsets.at(-1)}`);
      const created = () => blocks.events.filter((e) => e.type === 'block.created' && e.sessionId === s);
      await blocks.until(() => created().length > 0, 'blocks of the session');
      // Quiet: the compaction service has folded every message (no new block for a while).
      let seen = -1;
      await until(
        async () => {
          const n = created().length;
          const quiet = n === seen;
          seen = n;
          await new Promise((r) => setTimeout(r, 1500));
          return quiet ? true : undefined;
        },
        'the block stream to settle',
        60_000,
      );
      const totalSaved = (stats: { savedByStage: Record<string, number> }) =>
        Object.values(stats.savedByStage).reduce((a, b) => a + b, 0);
      const projected = async (active: number) =>
        until(async () => {
          const res = await api.call('GET', `/v1/sessions/${s}/stats`);
          return res.body.blocks?.active === active ? res.body : undefined;
        }, `${active} active blocks projected`);
      const gauge = async () =>
        metricValue(await (await fetch(`${compaction.url}/metrics`)).text(), 'ctxledger_tokens_saved_current');
      const counter = async () =>
        metricValue(await (await fetch(`${compaction.url}/metrics`)).text(), 'ctxledger_tokens_saved_total');

      const statsBefore = await projected(created().length);
      const [gaugeBefore, counterBefore] = [await gauge(), await counter()];
      expect(gaugeBefore).toBeGreaterThanOrEqual(totalSaved(statsBefore));

      const last = created().at(-1) as Extract<AnyEvent, { type: 'block.created' }>;
      const revert = await api.call('POST', `/v1/sessions/${s}/blocks/${last.data.block.id}/revert`);
      expect(revert.status).toBe(202);
      const statsAfter = await projected(created().length - 1);
      await until(
        async () => ((await gauge()) < gaugeBefore ? true : undefined),
        'the current-savings gauge to go down',
      );
      expect(gaugeBefore - (await gauge())).toBe(totalSaved(statsBefore) - totalSaved(statsAfter));
      expect(await counter()).toBe(counterBefore);
    });
  });
});
