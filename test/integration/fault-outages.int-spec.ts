/**
 * @outage stops its outage stack's broker and MongoDB-wire server, and bounds how long a 503 takes (10 s).
 */
import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import type { ChatMessage } from '@ctxledger/context-engine';
import { readTopic } from '../support/kafka-helpers';
import { FaultRun, type Pipeline } from '../support/fault/fault-run';
import { referenceBlocks } from '../support/compaction-reference';
import { quiescent } from '../support/fault/pipeline';
import { faultSeed, SeededRandom } from '../support/fault/seeded-random';
import { loadTranscripts, type Transcript } from '../support/transcripts';
import { readModelDocuments, runRebuild } from './session-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An agent appending its transcript over HTTP, one request of 1–3 messages at a time with an Idempotency-Key,
 * retrying a 503 (or a refused connection) with the same key as the API tells it to. Records every answer.
 */
class Writer {
  readonly statuses = new Map<number, number>();
  readonly unexpected: string[] = [];
  private sent = 0;
  slowest503Ms = 0;

  constructor(
    readonly sessionId: string,
    readonly messages: readonly ChatMessage[],
    private readonly url: () => string,
    private readonly random: SeededRandom,
  ) {}

  done(): boolean {
    return this.sent >= this.messages.length;
  }

  /** Appends the next request, retrying it until it is accepted. */
  async step(): Promise<void> {
    const count = Math.min(this.random.int(1, 3), this.messages.length - this.sent);
    const body = JSON.stringify({ messages: this.messages.slice(this.sent, this.sent + count) });
    const key = `w-${this.sent}`;
    for (;;) {
      const started = Date.now();
      let status = 0;
      let text: string;
      try {
        const res = await fetch(`${this.url()}/v1/sessions/${this.sessionId}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
          body,
          signal: AbortSignal.timeout(30_000),
        });
        status = res.status;
        text = await res.text();
      } catch (error) {
        text = String(error);
      }
      this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
      if (status === 202) {
        this.sent += count;
        return;
      }
      if (status === 503) this.slowest503Ms = Math.max(this.slowest503Ms, Date.now() - started);
      else this.unexpected.push(`${status}: ${text.slice(0, 300)}`);
      await sleep(300);
    }
  }
}

const total = (writers: readonly Writer[], status: number) =>
  writers.reduce((n, w) => n + (w.statuses.get(status) ?? 0), 0);

describe('fault: the broker and the MongoDB-wire server stopped and restarted (the outage stack)', () => {
  const seed = faultSeed();
  const random = new SeededRandom(seed + 1);
  const run = new FaultRun('fault-outages', 'fo', 'outage');
  const { stack, database, topics } = run;
  const rebuiltDb = run.alsoDrop(`${database.slice(0, 52)}_rebuilt`);
  let services: Pipeline;
  const transcripts = loadTranscripts();
  const pick = (prefixOfId: string): Transcript => transcripts.find((t) => t.id.startsWith(prefixOfId))!;
  const config = { provider: 'anthropic', contextWindow: 16_000, maxOutputTokens: 2_000, policy: { summaries: 'off' } };

  const get = async (path: string) => {
    const res = await fetch(`${services.session.url}${path}`, { signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    return { status: res.status, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    await run.up({ KAFKA_SEND_TIMEOUT_MS: '2000' });
    services = await run.startPipeline();
    console.log(`fault-outages: seed ${seed} (FAULT_SEED)`);
  }, 240_000);

  afterAll(() => run.down(), 120_000);

  it('broker down during ingest: POST answers 503 while it is down, nothing accepted is lost, the pipeline resumes', async () => {
    const chosen = [
      pick('pi-coding-agent:d703'),
      pick('claude-code:0ccf1a04-1b4c-43b6-8aa5-79e41db43a68'),
      pick('swe-agent:trajectories/demonstrations/ctf/web'),
    ];
    const writers = chosen.map(
      (t, i) => new Writer(`kafka-down-${i}`, t.messages.slice(0, 240), () => services.session.url, random),
    );
    for (const w of writers) {
      const res = await fetch(`${services.session.url}/v1/sessions/${w.sessionId}/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(config),
      });
      expect(res.status).toBe(202);
    }
    let phase: 'before' | 'down' | 'after' = 'before';
    const during = { down: 0, accepted: 0 };
    const writing = writers.map(async (w) => {
      while (!w.done()) {
        const before = w.statuses.get(202) ?? 0;
        await w.step();
        if (phase === 'down' && (w.statuses.get(202) ?? 0) > before) during.accepted++;
        await sleep(random.int(0, 60));
      }
    });
    const outage = (async () => {
      await sleep(random.int(2000, 4000));
      await stack.kafkaStop(); // SIGTERM: a controlled shutdown, then the port is closed
      phase = 'down';
      const downAt = Date.now();
      // Reads are served from MongoDB meanwhile; health says Kafka is down.
      const read = await get(`/v1/sessions/${writers[0]!.sessionId}/history?view=full`);
      expect(read.status).toBe(200);
      await sleep(Math.max(0, random.int(5000, 8000) - (Date.now() - downAt)));
      during.down = total(writers, 503);
      await stack.kafkaStart();
      phase = 'after';
    })();
    await Promise.all([...writing, outage]);

    expect(during.down).toBeGreaterThan(0); // POST answered 503 while the broker was down
    expect(writers.flatMap((w) => w.unexpected)).toEqual([]); // never a 500, never a dropped connection
    for (const w of writers) expect(w.slowest503Ms).toBeLessThan(10_000);

    await quiescent(stack.kafka('fault-outages'), run.pipelineReads, 'the pipeline to resume and catch up');
    for (const w of writers) {
      const full = await get(`/v1/sessions/${w.sessionId}/history?view=full`);
      // Every message accepted once, in order, whatever the refused tries did.
      expect(full.body.messages).toEqual(w.messages);
    }
    // The compaction service resumed: its blocks are those of a fault-free fold of the log.
    const kafka = stack.kafka('fault-outages');
    const log = (await readTopic(kafka, topics.sessionEvents)).map((r) => r.event);
    const blocks = (await readTopic(kafka, topics.blocks)).map((r) => r.event);
    let checked = 0;
    for (const w of writers) {
      const expected = (await referenceBlocks(log.filter((e) => e.sessionId === w.sessionId))).map((b) => b.id);
      const emitted = [
        ...new Set(
          blocks
            .filter((e) => e.sessionId === w.sessionId && e.type === 'block.created')
            .map((e) => (e.data as { block: { id: string } }).block.id),
        ),
      ];
      expect(emitted).toEqual(expected);
      const listed = await get(`/v1/sessions/${w.sessionId}/blocks`);
      expect(listed.body.blocks.map((b: { id: string }) => b.id).sort()).toEqual([...expected].sort());
      checked += expected.length;
    }
    expect(checked).toBeGreaterThan(0);
    for (const s of Object.values(services)) expect(s.process.exitCode).toBeNull();
    console.log(
      `fault-outages (broker): ${writers.reduce((n, w) => n + w.messages.length, 0)} messages in ${total(writers, 202)} accepted POSTs, ` +
        `${total(writers, 503)} answered 503 while the broker was down, ${log.length} session events and ${checked} blocks checked`,
    );
  }, 300_000);

  it('MongoDB-wire server down: the projector waits, then catches up without skipping; reads answer 503, not 500', async () => {
    const kafka = stack.kafka('fault-outages-mongo');
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const chosen = [
      pick('claude-code:0ccf1a04-1b4c-43b6-8aa5-79e41db43a68'),
      pick('swe-agent:trajectories/demonstrations/ctf/crypto/katy'),
      pick('pi-coding-agent:d703'),
    ];
    const sessions = chosen.map((t, i) => ({ id: `mongo-down-${i}`, messages: t.messages.slice(0, 150) }));
    const eventsOf = (s: (typeof sessions)[number], from: number, to: number): AnyEvent[] => [
      ...(from === 0
        ? [createEvent('session.configured', s.id, config as never, { eventId: `${s.id}-config` }) as AnyEvent]
        : []),
      ...s.messages
        .slice(from, to)
        .map(
          (m, i) =>
            createEvent('message.appended', s.id, { ...m, clientMessageId: `m${from + i}` } as never) as AnyEvent,
        ),
    ];
    const publish = async (from: number, to: number) => {
      for (const s of sessions) {
        await producer.send({
          topic: topics.sessionEvents,
          acks: -1,
          messages: eventsOf(s, from, to).map((e) => ({ key: e.sessionId, value: JSON.stringify(e) })),
        });
      }
    };
    // A third before the outage, a third while it lasts (in several requests), the rest after.
    await publish(0, 50);
    await stack.mongoStop();
    const downReads: number[] = [];
    // Each read waits for the driver's server selection (5 s) before it answers: three of them.
    for (const [from, to] of [
      [50, 67],
      [67, 84],
      [84, 100],
    ] as const) {
      await publish(from, to);
      downReads.push((await get(`/v1/sessions/${sessions[0]!.id}/history`)).status);
      await sleep(random.int(300, 900));
    }
    const health = await get('/health');
    expect(health.status).toBe(503);
    await stack.mongoStart();
    await publish(100, 150);
    await producer.disconnect();
    // While the server was down every read answered 503 (the read model is unavailable), never 500.
    expect(downReads).toEqual(downReads.map(() => 503));

    await quiescent(kafka, run.pipelineReads, 'the projector and the compaction service to catch up');
    for (const s of sessions) {
      const full = await get(`/v1/sessions/${s.id}/history?view=full`);
      expect(full.status).toBe(200);
      expect(full.body.messages).toEqual(s.messages);
    }
    // No position skipped or doubled, and the documents equal a fault-free projection of the same topics.
    await runRebuild(run.env, rebuiltDb);
    const live = await readModelDocuments(run.env.MONGODB_URI!, database);
    expect(live).toEqual(await readModelDocuments(run.env.MONGODB_URI!, rebuiltDb));
    for (const s of sessions) {
      const positions = live
        .session_messages!.filter((m: any) => m.sessionId === s.id)
        .map((m: any) => m.position as number)
        .sort((a, b) => a - b);
      expect(positions).toEqual(s.messages.map((_, i) => i));
    }
    for (const s of Object.values(services)) expect(s.process.exitCode).toBeNull();
    const documents = Object.values(live).reduce((n, docs) => n + docs.length, 0);
    console.log(
      `fault-outages (mongo): ${sessions.length * 150} messages (${sessions.length * 50} published while the server was down), ` +
        `${downReads.length} reads answered 503 meanwhile, ${documents} read-model documents equal to the rebuild`,
    );
  }, 300_000);
});
