/**
 * @outage stops its outage stack's broker under steady load, and bounds how fast /health answers meanwhile
 * (1.5 s).
 */
import { eventually } from '../support/eventually';
import { readTopic } from '../support/kafka-helpers';
import { FaultRun, type Pipeline } from '../support/fault/fault-run';
import { healthyWithoutConsumer, SteadyLoad } from '../support/fault/load';
import { quiescent } from '../support/fault/pipeline';
import { expectAcknowledgedServed, expectReferenceBlocks } from '../support/fault/verdicts';
import { loadTranscripts } from '../support/transcripts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The broker stopped for ~15 s under steady load and started again. Before the transport supervised its consumer,
 * a consumer whose commit met "The coordinator is not aware of this member" after the restart crashed without
 * kafkajs restarting it: the group stayed empty, lag grew, and /health kept answering 200.
 */
describe('fault: the broker restarted under steady load (the outage stack)', () => {
  const run = new FaultRun('fault-broker-restart', 'fr', 'outage');
  const { stack, topics } = run;
  let services: Pipeline;
  const config = { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 2_000, policy: { summaries: 'off' } };

  beforeAll(async () => {
    await run.up({ KAFKA_SEND_TIMEOUT_MS: '2000' });
    services = await run.startPipeline();
  }, 240_000);

  afterAll(() => run.down(), 120_000);

  it('nothing acknowledged is lost or doubled, the consumers come back by themselves, /health tells the truth', async () => {
    const kafka = stack.kafka('fault-restart');
    const transcripts = loadTranscripts().filter((t) => t.messages.length >= 20 && !t.id.startsWith('pi-coding-agent'));
    const sessions = transcripts.slice(0, 8).map((t, i) => ({ id: `restart-${i}`, messages: t.messages }));
    const load = new SteadyLoad(sessions, () => services.session.url, 17);
    const watch = run.watchPipeline(kafka, () => services);
    await load.start(config);

    await sleep(5000);
    const ackedBefore = load.ackedTotal();
    await stack.kafkaStop();
    const downAt = Date.now();
    await sleep(15_000);
    const startAt = Date.now();
    await stack.kafkaStart(); // returns once the broker answers and its topics have leaders
    const upAt = Date.now();
    // Load goes on after the restart, so the consumers have new work to show they are back.
    await sleep(12_000);
    await load.stop();
    const ackedAfterRestart = load.ackedTotal();

    // Both consumer groups commit everything, with no restart of any process.
    const caughtUp = Date.now();
    await quiescent(kafka, run.pipelineReads, 'both consumer groups to catch up after the broker restart', {
      timeoutMs: 90_000,
    });
    const recoveredMs = Date.now() - upAt;
    // Two more health samples of each service, now that everything is committed.
    const committedAt = Date.now();
    await eventually(
      async () => (['compaction', 'session'] as const).map((name) => watch.of(name, committedAt).length),
      (counts) => counts.every((n) => n >= 2),
      'two health samples of each service after the groups caught up',
      30_000,
    );
    await watch.stop();

    expect(load.unexpected).toEqual([]);
    expect(ackedBefore).toBeGreaterThan(0);
    expect(ackedAfterRestart).toBeGreaterThan(ackedBefore);
    expect(load.count(503)).toBeGreaterThan(0); // the broker really was down for the writers

    // Every acknowledged message is in the effective history exactly once, in order.
    const records = await readTopic(kafka, topics.sessionEvents);
    const ids = sessions.map((s) => s.id);
    const stored = await expectAcknowledgedServed(services.session.url, ids, load, records);
    // The compaction service kept emitting: its blocks are those of a fault-free fold of the log, once each.
    const blockEvents = (await readTopic(kafka, topics.blocks)).map((r) => r.event);
    const blocks = await expectReferenceBlocks(
      ids,
      records.map((r) => r.event),
      blockEvents,
    );
    const blocksAfterRestart = blockEvents.filter(
      (e) => ids.includes(e.sessionId) && e.type === 'block.created' && Date.parse(e.time) > upAt,
    ).length;
    expect(blocksAfterRestart).toBeGreaterThan(0);

    for (const name of ['compaction', 'session'] as const) {
      const outage = watch.of(name, downAt + 1000, startAt);
      // While the broker is down: 503, and at once (not after the health timeout).
      expect(outage.length).toBeGreaterThan(5);
      expect(outage.filter((s) => s.status !== 503)).toEqual([]);
      expect(Math.max(...outage.map((s) => s.ms))).toBeLessThan(1500);
      // Never 200 while the broker knows no member of the service's group.
      expect(healthyWithoutConsumer(watch.of(name))).toEqual([]);
      // 200 again once caught up.
      const last = watch.of(name, caughtUp).slice(-2);
      expect(last.map((s) => s.status)).toEqual([200, 200]);
    }
    for (const s of Object.values(services)) expect(s.process.exitCode).toBeNull();

    const firstOk = (name: string) => watch.of(name, upAt).find((s) => s.status === 200)?.at;
    console.log(
      `fault-broker-restart: ${load.ackedTotal()} messages acknowledged (${load.count(503)} answers 503 meanwhile), ` +
        `${stored} stored, ${blocks} blocks (${blocksAfterRestart} after the restart); consumers caught up ` +
        `${Math.round(recoveredMs / 1000)} s after the broker started; /health 200 again after ` +
        `${['compaction', 'session'].map((n) => `${n} ${Math.round(((firstOk(n) ?? NaN) - upAt) / 1000)} s`).join(', ')}; ` +
        `slowest /health while down ${Math.max(...watch.of('compaction', downAt + 1000, startAt).map((s) => s.ms))} ms`,
    );
  }, 300_000);
});
