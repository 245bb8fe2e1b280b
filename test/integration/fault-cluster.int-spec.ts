/**
 * @exclusive a three-broker cluster of its own under steady load, brokers stopped one at a time: the
 * heaviest file of the suite, and it counts on the load it makes itself.
 */
import type { Admin } from 'kafkajs';
import { keyPartition } from '@ctxledger/kafka';
import { readTopic } from '../support/kafka-helpers';
import { FaultRun, type Pipeline } from '../support/fault/fault-run';
import { healthyWithoutConsumer, SteadyLoad } from '../support/fault/load';
import { quiescent } from '../support/fault/pipeline';
import { expectAcknowledgedServed, expectReferenceBlocks } from '../support/fault/verdicts';
import { loadTranscripts } from '../support/transcripts';
import { ownStackPorts } from '../support/stack-settings';
import { eventually } from '../support/eventually';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until every partition of the topics has all its replicas in sync (a stopped broker caught up again). */
async function fullyReplicated(admin: Admin, topics: string[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { topics: found } = await admin.fetchTopicMetadata({ topics }).catch(() => ({ topics: [] }));
    const lagging = found.flatMap((t) => t.partitions.filter((p) => p.isr.length < p.replicas.length));
    if (found.length === topics.length && lagging.length === 0) return;
    if (Date.now() > deadline) throw new Error(`replicas not in sync within ${timeoutMs} ms`);
    await sleep(500);
  }
}

/**
 * The broker probe's failure, not a consumer's: a consumer whose connection to the stopped broker failed is
 * restarted (its /health is 503 meanwhile, naming the consumer and its last error), which is allowed.
 */
function brokersUnreachable(message: unknown): boolean {
  return (
    typeof message === 'string' && !message.startsWith('consumer of ') && /Connection error|ECONNREFUSED/.test(message)
  );
}

/**
 * A three-broker KRaft cluster of its own (replication factor 3, min.insync.replicas 2) under steady HTTP load:
 * one broker stopped and started again, then the broker leading the partition of a loaded session. The cluster stays
 * writable throughout, so acknowledged messages keep coming while a broker is down.
 */
describe('fault: brokers of a three-broker cluster stopped one at a time under load (own cluster instance)', () => {
  const run = new FaultRun('fault-cluster', 'fc', ownStackPorts(20, 3));
  const { stack, topics } = run;
  let services: Pipeline;
  const config = { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 2_000, policy: { summaries: 'off' } };

  beforeAll(async () => {
    await run.up({ KAFKA_SEND_TIMEOUT_MS: '3000' });
    services = await run.startPipeline();
  }, 300_000);

  afterAll(() => run.down(), 180_000);

  it('nothing acknowledged is lost or doubled, writes go on while a broker is down, the consumers keep up', async () => {
    const kafka = stack.kafka('fault-cluster');
    const admin = kafka.admin();
    await admin.connect();
    expect(stack.brokers).toHaveLength(3);
    const metadata = await admin.fetchTopicMetadata({ topics: [topics.sessionEvents] });
    // Topics created by the services' own code get the cluster's replication factor.
    for (const p of metadata.topics[0]!.partitions) expect(p.replicas).toHaveLength(3);

    // Each session: the shorter transcripts one after another (from a different one each), enough for the whole run.
    const transcripts = loadTranscripts().filter((t) => t.messages.length >= 20 && !t.id.startsWith('pi-coding-agent'));
    const sessions = Array.from({ length: 8 }, (_, i) => ({
      id: `cluster-${i}`,
      messages: [...transcripts.slice(i), ...transcripts.slice(0, i)].flatMap((t) => t.messages),
    }));
    const load = new SteadyLoad(sessions, () => services.session.url, 17);
    const watch = run.watchPipeline(kafka, () => services);
    await load.start(config);
    // The sessions under way before the first stop.
    await sleep(2000);

    const allTopics = [topics.sessionEvents, topics.blocks];
    const outages: Array<{ broker: number; acked: number }> = [];
    const outage = async (broker: number) => {
      await stack.kafkaStop(broker);
      const before = load.ackedTotal();
      await sleep(4000);
      outages.push({ broker, acked: load.ackedTotal() - before });
      await stack.kafkaStart(broker);
      await fullyReplicated(admin, allTopics);
    };
    // One broker: the one leading none of the partition of the first session, if there is one (any other first).
    const partition = keyPartition(topics.sessionEvents, sessions[0]!.id, metadata.topics[0]!.partitions.length);
    const leaderOf = async () =>
      (await admin.fetchTopicMetadata({ topics: [topics.sessionEvents] })).topics[0]!.partitions.find(
        (p) => p.partitionId === partition,
      )!.leader;
    const firstLeader = await leaderOf();
    await outage([1, 2, 3].find((b) => b !== firstLeader)!);
    // Then the broker that leads that session's partition now.
    await outage(await leaderOf());
    // Writes go on once the cluster is whole again.
    await sleep(1000);
    await load.stop();

    await quiescent(kafka, run.pipelineReads, 'both consumer groups to catch up', { timeoutMs: 90_000 });
    const caughtUp = Date.now();
    const lastTwo = (name: string) =>
      watch
        .of(name, caughtUp)
        .slice(-2)
        .map((s) => s.status);
    // Both services healthy again once caught up: their last two samples 200.
    await eventually(
      async () => ['compaction', 'session'].map(lastTwo),
      (both) => both.every((statuses) => statuses.length === 2 && statuses.every((s) => s === 200)),
      '/health 200 twice in a row after the catch-up',
      15_000,
    ).catch(() => undefined);
    await watch.stop();
    await admin.disconnect();

    expect(load.unexpected).toEqual([]);
    // The cluster stayed writable with one broker down.
    for (const o of outages) expect(o.acked).toBeGreaterThan(0);

    const records = await readTopic(kafka, topics.sessionEvents);
    const ids = sessions.map((s) => s.id);
    const stored = await expectAcknowledgedServed(services.session.url, ids, load, records);
    const blockEvents = (await readTopic(kafka, topics.blocks)).map((r) => r.event);
    const blocks = await expectReferenceBlocks(
      ids,
      records.map((r) => r.event),
      blockEvents,
    );
    expect(blocks).toBeGreaterThan(0);

    for (const name of ['compaction', 'session'] as const) {
      expect(healthyWithoutConsumer(watch.of(name))).toEqual([]);
      // One broker down is not Kafka down: /health never reports the cluster unreachable (it did while the seed
      // broker its probe picked was the stopped one). A consumer being restarted may make it 503, saying so.
      const unreachable = watch
        .of(name)
        .filter((s) => s.status !== 200 && brokersUnreachable(s.body?.details?.kafka?.message));
      expect(unreachable).toEqual([]);
      expect(lastTwo(name)).toEqual([200, 200]);
    }
    for (const s of Object.values(services)) expect(s.process.exitCode).toBeNull();
    const unhealthy = (name: string) => watch.of(name).filter((s) => s.status !== 200).length;
    console.log(
      `fault-cluster: brokers ${outages.map((o) => o.broker).join(' then ')} stopped; ${load.ackedTotal()} messages acknowledged ` +
        `(${outages.map((o) => o.acked).join(' and ')} within 4 s of each stop; ${load.count(503)} answers 503), ${stored} stored, ` +
        `${blocks} blocks; /health not 200 in ${unhealthy('compaction')} of ${watch.of('compaction').length} samples (compaction), ` +
        `${unhealthy('session')} of ${watch.of('session').length} (session)`,
    );
  }, 400_000);
});
