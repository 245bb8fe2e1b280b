/**
 * SIGKILLs each service at seeded points of a replay paced at 400 ms per send, on the run's stack (its own topics and
 * database), beside other files: what it checks (nothing acknowledged lost, the blocks those of a fault-free fold)
 * holds wherever the kills land.
 */
import type { CompactionBlock } from '@ctxledger/context-engine';
import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { readTopic } from '../support/kafka-helpers';
import { FaultRun } from '../support/fault/fault-run';
import { referenceBlocks } from '../support/compaction-reference';
import { quiescent, RestartableService } from '../support/fault/pipeline';
import { faultSeed, SeededRandom } from '../support/fault/seeded-random';
import { loadTranscripts } from '../support/transcripts';
import { readModelDocuments, runRebuild } from './session-harness';

const KILLS_PER_SERVICE = Number(process.env.FAULT_KILLS_PER_SERVICE ?? 2);
const SERVICES = ['compaction-service', 'session-service', 'summarizer-service'] as const;

describe('fault: each service SIGKILLed at random points during a replay of many sessions (shared stack)', () => {
  const seed = faultSeed();
  const random = new SeededRandom(seed);
  // Kills services, never the broker or the database: the run's stack, with a topic prefix and databases of its own.
  const run = new FaultRun('fault-kills', 'fk', 'shared');
  const { stack, prefix, database, topics } = run;
  const rebuiltDb = run.alsoDrop(`${database.slice(0, 52)}_rebuilt`);
  const services = new Map<string, RestartableService>();

  beforeAll(async () => {
    // Longer than a summarizer restart and its group's rebalance; a timeout is in the log, so it replays the same.
    await run.up({ SUMMARY_TIMEOUT_MS: '30000' });
    for (const name of SERVICES) {
      services.set(name, new RestartableService(name, run.env));
      run.track(name, services.get(name)!);
    }
    await Promise.all([...services.values()].map((s) => s.start()));
  }, 240_000);

  afterAll(() => run.down(), 120_000);

  it('the final projections equal a run without faults: nothing lost, nothing duplicated', async () => {
    const started = Date.now();
    // Every developer transcript but the largest (1.6 MB), each in a window it overflows when it is long.
    const transcripts = loadTranscripts();
    const chat = transcripts.find((t) => t.id === 'claude-code:0ccf1a04-1b4c-43b6-8aa5-79e41db43a68')!;
    const sessions = [
      ...transcripts
        .filter((t) => !t.id.startsWith('pi-coding-agent:ffae'))
        .map((t) => ({
          transcript: t,
          config: t.source.startsWith('swe-agent')
            ? { provider: 'openai', model: 'gpt-4o', contextWindow: 16_000, maxOutputTokens: 2_000 }
            : { provider: 'anthropic', contextWindow: 16_000, maxOutputTokens: 2_000 },
        })),
      // A multi-turn chat in a window it overflows asks the summarizer: six of them keep it busy during the kills.
      ...Array.from({ length: 6 }, () => ({
        transcript: chat,
        config: { provider: 'anthropic', contextWindow: 9_000, maxOutputTokens: 1_000, systemPromptTokens: 500 },
      })),
    ].map((s, i) => ({ id: `k${i}`, ...s }));
    const queues = sessions.map((s) => [
      createEvent('session.configured', s.id, s.config as never, { eventId: `${s.id}-config` }) as AnyEvent,
      ...s.transcript.messages.map(
        (m, i) =>
          createEvent('message.appended', s.id, { ...m, clientMessageId: `m${i}` } as never, {
            eventId: `${s.id}-m${i}`,
          }) as AnyEvent,
      ),
    ]);
    const total = queues.reduce((n, q) => n + q.length, 0);
    // Interleaved like live traffic: seeded slices of random sessions, sent in ~40 requests about 400 ms apart.
    const sends: AnyEvent[][] = [];
    let current: AnyEvent[] = [];
    const perSend = Math.ceil(total / 40);
    for (;;) {
      const open = queues.filter((q) => q.length > 0);
      if (open.length === 0) break;
      current.push(...random.pick(open).splice(0, random.int(1, 25)));
      if (current.length >= perSend) {
        sends.push(current);
        current = [];
      }
    }
    if (current.length > 0) sends.push(current);
    const publishMs = sends.length * 400;
    // Each service killed KILLS_PER_SERVICE times at seeded moments of the ingest (restarted at once).
    const kills = SERVICES.flatMap((name) =>
      Array.from({ length: KILLS_PER_SERVICE }, () => ({ name, atMs: random.int(500, publishMs + 3000) })),
    ).sort((a, b) => a.atMs - b.atMs);
    console.log(
      `fault-kills: seed ${seed} (FAULT_SEED), ${sessions.length} sessions, ${total} events in ${sends.length} sends; kills at ${kills.map((k) => `${k.name}@${k.atMs}ms`).join(', ')}`,
    );

    const kafka = stack.kafka('fault-kills');
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const t0 = Date.now();
    const publishing = (async () => {
      for (const [i, batch] of sends.entries()) {
        await producer.send({
          topic: topics.sessionEvents,
          acks: -1,
          messages: batch.map((e) => ({ key: e.sessionId, value: JSON.stringify(e) })),
        });
        const wait = t0 + (i + 1) * 400 - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    })();
    const byService = new Map<string, Promise<void>>();
    const killing = kills.map(async ({ name, atMs }) => {
      await new Promise((r) => setTimeout(r, Math.max(0, t0 + atMs - Date.now())));
      const previous = byService.get(name) ?? Promise.resolve();
      const next = previous.then(() => services.get(name)!.killAndRestart());
      byService.set(name, next);
      await next;
    });
    await Promise.all([publishing, ...killing]);
    await producer.disconnect();

    await quiescent(
      kafka,
      [...run.pipelineReads, [`${prefix}.summarizer`, topics.summaryRequests]],
      'every consumer to catch up after the last restart',
    );
    for (const s of services.values()) expect(s.alive()).toBe(true);

    // 1. The input side: every message of every session once, in order (GET history view=full).
    const session = services.get('session-service')!.current!;
    for (const s of sessions) {
      const res = await fetch(`${session.url}/v1/sessions/${s.id}/history?view=full`);
      expect(res.status).toBe(200);
      const full = (await res.json()) as { messages: unknown[]; originalMessageCount: number };
      expect(full.originalMessageCount).toBe(s.transcript.messages.length);
      expect(full.messages).toEqual(s.transcript.messages);
    }

    // 2. The compaction side: the distinct blocks on the block stream are those of a fault-free fold of the
    //    session stream as it is in the log; a block published again after a kill is the same block.
    const log = (await readTopic(kafka, topics.sessionEvents)).map((r) => r.event);
    const blockRecords = (await readTopic(kafka, topics.blocks)).map((r) => r.event);
    let blocksChecked = 0;
    let redelivered = 0;
    for (const s of sessions) {
      const expected = await referenceBlocks(log.filter((e) => e.sessionId === s.id));
      const emitted = blockRecords.filter(
        (e): e is Extract<AnyEvent, { type: 'block.created' }> => e.type === 'block.created' && e.sessionId === s.id,
      );
      const first = new Map<string, string>();
      for (const e of emitted) {
        const block = JSON.stringify(e.data.block);
        const id = (e.data.block as unknown as CompactionBlock).id;
        if (first.has(id)) {
          redelivered++;
          expect(block).toBe(first.get(id));
        } else first.set(id, block);
      }
      expect([...first.keys()]).toEqual(expected.map((b) => b.id));
      expect([...first.values()].map((b) => JSON.parse(b))).toEqual(JSON.parse(JSON.stringify(expected)));
      const listed = (await (await fetch(`${session.url}/v1/sessions/${s.id}/blocks`)).json()) as {
        blocks: Array<{ id: string; active: boolean }>;
      };
      expect(listed.blocks.map((b) => b.id).sort()).toEqual(expected.map((b) => b.id).sort());
      blocksChecked += expected.length;
    }
    expect(blocksChecked).toBeGreaterThan(20); // the run really compacted
    // The summarizer took part: requests were answered on the session stream (or timed out, in the log too).
    const requests = (await readTopic(kafka, topics.summaryRequests)).map((r) => r.event);
    const answered = log.filter((e) => e.type === 'summary.completed' || e.type === 'summary.failed');
    expect(requests.length).toBeGreaterThan(0);
    // Every request got its answer in the log (the summarizer's result, or the compaction service's timeout).
    const answeredIds = new Set(answered.map((e) => (e.data as { requestId: string }).requestId));
    expect(
      requests
        .filter((e) => e.type === 'summary.requested' && !answeredIds.has(e.data.requestId))
        .map((e) => e.eventId),
    ).toEqual([]);
    const stages = new Map<string, number>();
    for (const e of blockRecords)
      if (e.type === 'block.created') {
        const stage = (e.data.block as unknown as CompactionBlock).stage;
        stages.set(stage, (stages.get(stage) ?? 0) + 1);
      }

    // 3. The read model: the documents the faulty run left equal those of a fault-free projector run (the rebuild
    //    replays both topics into an empty database with the projector's own code).
    await runRebuild(run.env, rebuiltDb);
    const live = await readModelDocuments(run.env.MONGODB_URI!, database);
    const rebuilt = await readModelDocuments(run.env.MONGODB_URI!, rebuiltDb);
    expect(live).toEqual(rebuilt);
    expect(live.session_messages).toHaveLength(total - sessions.length);

    // 4. Nothing was dead-lettered: a kill is not a reason to give up on a record.
    const deadLetters = await readTopic(kafka, topics.deadLetter);
    expect(deadLetters.map((r) => r.event)).toEqual([]);

    const documents = Object.values(live).reduce((n, docs) => n + docs.length, 0);
    console.log(
      `fault-kills: seed ${seed}: ${kills.length} kills survived (${SERVICES.map((n) => `${n} ${services.get(n)!.kills}`).join(', ')}); ` +
        `${log.length} session events, ${blockRecords.length} block events (${redelivered} republished duplicates), ` +
        `${blocksChecked} distinct blocks (${[...stages].map(([k, n]) => `${k} ${n}`).join(', ')}), ${requests.length} summary requests, ${answered.length} summary results, ${documents} read-model documents checked; ${Math.round((Date.now() - started) / 1000)} s`,
    );
  }, 420_000);
});
