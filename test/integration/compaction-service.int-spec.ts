import {
  effectiveHistory,
  findToolPairViolations,
  foldEvents,
  type CompactionBlock,
  type SessionEvent,
} from '@ctxledger/context-engine';
import { createEvent, encodeEvent, topicNames, type AnyEvent } from '@ctxledger/contracts';
import { referenceBlocks } from '../support/compaction-reference';
import { readTopic, testKafka, TopicCollector } from '../support/kafka-helpers';
import { startService, type RunningService } from '../support/service-process';
import { unique } from '../support/stack-settings';
import { transcript } from '../support/transcripts';

/** The engine state of a session from its messages and the blocks the service published. */
function foldSession(sessionId: string, config: SessionEvent, messages: AnyEvent[], blocks: CompactionBlock[]) {
  let position = 0;
  const events: SessionEvent[] = [config];
  for (const m of messages) {
    if (m.type === 'message.appended') {
      const { clientMessageId: _id, ...message } = m.data;
      events.push({ type: 'MessageAppended', data: { position: position++, message } });
    }
  }
  for (const block of blocks) events.push({ type: 'BlockCreated', data: { block } });
  return foldEvents(sessionId, events);
}

const metricValue = (text: string, name: string): number =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);

describe('compaction service on the real stack', () => {
  const prefix = unique('cmp').replace(/-/g, '_');
  const topics = topicNames(prefix);
  const kafka = testKafka('compaction-test');
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  let service: RunningService | undefined;
  let blocks: TopicCollector;
  const env = { TOPIC_PREFIX: prefix, SUMMARY_TIMEOUT_MS: '1500' };
  const session = transcript('swe-agent:tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first_only');
  // A window the transcript overflows several times over (history budget ≈ 9,000 tokens).
  const config = {
    provider: 'openai',
    model: 'gpt-4o',
    contextWindow: 12_000,
    maxOutputTokens: 2_000,
    systemPromptTokens: 1_000,
  };

  const publish = async (sessionId: string, events: Array<[type: AnyEvent['type'], data: unknown]>) => {
    await producer.send({
      topic: topics.sessionEvents,
      messages: events.map(([type, data], i) => ({
        key: sessionId,
        value: encodeEvent(
          createEvent(type, sessionId, data as never, { eventId: `${sessionId}-${i}-${type}` }) as AnyEvent,
        ),
      })),
    });
  };
  const messagesOf = (from: number, to: number) =>
    session.messages
      .slice(from, to)
      .map((m, i) => ['message.appended', { ...m, clientMessageId: `m-${from + i}` }] as [AnyEvent['type'], unknown]);

  beforeAll(async () => {
    await producer.connect();
    service = await startService('compaction-service', env);
    blocks = await new TopicCollector(kafka, topics.blocks).start();
  });

  afterAll(async () => {
    await service?.stop();
    await blocks.stop();
    await producer.disconnect();
  });

  it('compacts a real transcript published raw: fits, no orphans, the tail kept; metrics and replay agree', async () => {
    const sessionId = unique('s');
    await publish(sessionId, [
      ['session.configured', { ...config, policy: { summaries: 'off' } }],
      ...messagesOf(0, session.messages.length),
    ]);

    // Wait until the service has seen the whole session: its gauges count it and the block stream is quiet.
    const collected = () =>
      blocks.events.filter(
        (e): e is Extract<AnyEvent, { type: 'block.created' }> =>
          e.type === 'block.created' && e.sessionId === sessionId,
      );
    await blocks.until(() => collected().length > 0, 'a first block');
    const log = (await readTopic(kafka, topics.sessionEvents))
      .map((r) => r.event)
      .filter((e) => e.sessionId === sessionId);
    const expected = await referenceBlocks(log);
    await blocks.until(() => collected().length >= expected.length, `${expected.length} blocks`);

    const emitted = collected().map((e) => e.data.block as unknown as CompactionBlock);
    expect(emitted.map((b) => b.id)).toEqual(expected.map((b) => b.id));
    expect(emitted).toEqual(JSON.parse(JSON.stringify(expected)));

    const state = foldSession(
      sessionId,
      { type: 'SessionConfigured', data: { config: { ...config, policy: { summaries: 'off' } } } },
      log,
      emitted,
    );
    const effective = effectiveHistory(state);
    expect(state.effectiveTokens).toBeLessThanOrEqual(state.budget.historyBudget);
    expect(state.rawTokens).toBeGreaterThan(state.budget.historyBudget); // it really had to compact
    expect(findToolPairViolations(effective, { allowPendingTail: true })).toEqual([]);
    const lastUser = [...session.messages].reverse().find((m) => m.role === 'user')!;
    expect(effective).toContainEqual(lastUser);
    expect(effective[effective.length - 1]).toEqual(session.messages[session.messages.length - 1]);

    const metrics = await (await fetch(`${service!.url}/metrics`)).text();
    const saved = emitted.reduce((sum, b) => sum + b.tokensSaved, 0);
    expect(metricValue(metrics, 'ctxledger_tokens_saved_total')).toBe(saved);
    expect(metricValue(metrics, 'ctxledger_blocks_created_total')).toBe(emitted.length);
  });

  it('asks for a summary and, when none comes in time, falls back to the cheap stages in the log', async () => {
    const sessionId = unique('s');
    // A conversation of several turns (the SWE-agent one is a single long turn: split-turn handles it).
    const chat = transcript('claude-code:0ccf1a04-1b4c-43b6-8aa5-79e41db43a68');
    const chatConfig = { provider: 'anthropic', contextWindow: 9_000, maxOutputTokens: 1_000, systemPromptTokens: 500 };
    const requests = await new TopicCollector(kafka, topics.summaryRequests).start();
    try {
      await publish(sessionId, [
        ['session.configured', chatConfig],
        ...chat.messages.map(
          (m, i) => ['message.appended', { ...m, clientMessageId: `c-${i}` }] as [AnyEvent['type'], unknown],
        ),
      ]);
      await requests.until((events) => events.some((e) => e.sessionId === sessionId), 'a summary request');
      const request = requests.events.find((e) => e.sessionId === sessionId)!;
      expect(request.type).toBe('summary.requested');
      // No summarizer runs here: after SUMMARY_TIMEOUT_MS the service publishes summary.failed on the session stream…
      await blocks.until(
        () =>
          blocks.events.some(
            (e) =>
              e.sessionId === sessionId &&
              e.type === 'block.created' &&
              ['digest', 'sliding-window', 'keep-within-budget'].includes((e.data.block as CompactionBlock).stage),
          ),
        'a fallback block',
        30_000,
      );
      const log = (await readTopic(kafka, topics.sessionEvents))
        .map((r) => r.event)
        .filter((e) => e.sessionId === sessionId);
      expect(
        log.some((e) => e.type === 'summary.failed' && e.data.reason.startsWith('no summary within 1500 ms')),
      ).toBe(true);
      // …and the fallback, being in the log, replays to the same blocks.
      const emitted = blocks.events
        .filter((e) => e.sessionId === sessionId && e.type === 'block.created')
        .map((e) => (e.data as { block: CompactionBlock }).block.id);
      expect(emitted).toEqual((await referenceBlocks(log)).map((b) => b.id));
    } finally {
      await requests.stop();
    }
  });

  it('killed mid-stream (SIGKILL) and restarted: the same blocks, none lost, none different', async () => {
    const sessionId = unique('s');
    const half = Math.floor(session.messages.length / 2);
    await publish(sessionId, [
      ['session.configured', { ...config, policy: { summaries: 'off' } }],
      ...messagesOf(0, half),
    ]);
    await blocks.until(() => blocks.events.some((e) => e.sessionId === sessionId), 'a block before the kill');
    await service!.kill();
    await publish(sessionId, messagesOf(half, session.messages.length));
    service = await startService('compaction-service', env);

    const log = (await readTopic(kafka, topics.sessionEvents))
      .map((r) => r.event)
      .filter((e) => e.sessionId === sessionId);
    const expected = (await referenceBlocks(log)).map((b) => b.id);
    const ofSession = () => blocks.events.filter((e) => e.sessionId === sessionId && e.type === 'block.created');
    await blocks.until(
      () => new Set(ofSession().map((e) => e.eventId)).size >= expected.length,
      `${expected.length} distinct blocks`,
    );
    // At-least-once: a block may be published again after the kill, always with the same id and content.
    const distinct = [...new Map(ofSession().map((e) => [e.eventId, JSON.stringify(e.data)])).keys()];
    expect(distinct).toEqual(expected);
    for (const id of distinct)
      expect(
        new Set(
          ofSession()
            .filter((e) => e.eventId === id)
            .map((e) => JSON.stringify(e.data)),
        ).size,
      ).toBe(1);
  });
});
