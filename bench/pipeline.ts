/**
 * Pipeline benchmark (a script, never a timed test):
 *
 *   npm run bench [-- --quick] [-- --profile] [-- --no-build] [-- --keep-stack]
 *
 * Starts its own stack instance (STACK_INSTANCE=bench on ports 19592/19593/27518, so the tests' stack is not
 * disturbed), builds and starts the services as processes, and measures in one run, side by side:
 *
 * 1. Ceiling: kafkajs producing and a consumer group consuming the same records (real transcript messages),
 *    and bulk writes of the same documents the projector writes (message inserts + session updates) to the
 *    MongoDB-wire server; also the two chained by the thinnest code (consume → bulk write → commit).
 * 2. Pipeline: sustained publish → visible in the read model with many concurrent sessions, as a ratio to
 *    the ceiling; the CPU time of every process (services, Kafka, FerretDB, the bench) during it; with
 *    --profile, CPU profiles of the services (node --cpu-prof), summarized by function and by package.
 * 3. Latency: publish → visible p50/p95/p99 at steady offered loads of single messages (10, 25, 50 msg/s);
 *    GET effective history p50/p99 with concurrent keep-alive clients for sessions of 100, 1,000, 10,000.
 * 4. Engine in the service: CPU of the compaction service (and the session service) per message while
 *    sessions grow from 0 to 100, 100 to 1,000 and 1,000 to 10,000 messages.
 * 5. Scale-out: 1 vs 2 compaction-service instances draining the same backlog on a 6-partition topic.
 *
 * Prints a table and writes bench/results/pipeline.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import Table from 'cli-table3';
import { Command } from 'commander';
import { Kafka, logLevel, type Producer, type Message } from 'kafkajs';
import { mongo as mongodb } from 'mongoose';
import { allTopics, topicNames, type AnyEvent } from '@ctxledger/contracts';
import { configure } from '@ctxledger/context-engine';
import { ensureTopics } from '@ctxledger/kafka/topic-admin';
import { keyPartition } from '@ctxledger/kafka/transport/partition-guard';
import { evolveMessage } from '../apps/session-service/src/read-models/messages/message.evolve';
import { repoRoot } from '../tools/local-stack';
import { startCountingProxy, type CountingProxy, type RequestCount } from './mongo-request-counter';
import {
  BenchSession,
  BENCH_STACK_ENV,
  benchStack,
  benchStackIsUp,
  benchStackSettings,
  cpuDelta,
  cpuSnapshot,
  loadMessagePool,
  nowMs,
  percentile,
  record,
  round,
  sleep,
  sortNum,
  startBuiltService,
  summarizeProfiles,
  withDatabase,
  type BenchService,
  type CpuSnapshot,
} from './pipeline-support';

type MongoClient = mongodb.MongoClient;
type Db = mongodb.Db;
type AnyBulkWriteOperation<T extends mongodb.Document> = mongodb.AnyBulkWriteOperation<T>;

const program = new Command()
  .option('--quick', 'a smoke run: small sizes, short phases')
  .option('--profile', 'CPU-profile the services (node --cpu-prof) during the run and summarize the profiles')
  .option('--no-build', 'use the services already built in dist/')
  .option('--dist <dir>', 'where the built services are (e.g. a worktree of an older commit, to compare)')
  .option('--keep-stack', 'leave the bench stack instance running at the end')
  .option(
    '--count-requests',
    "count the services' MongoDB requests by command and collection per pipeline round and latency run (through a proxy: its rates are then not the figures)",
  )
  .option(
    '--rounds <n>',
    'measured rounds of the ceiling and of the pipeline: the best of each is the figure (both vary run to run)',
    '2',
  )
  .option(
    '--warmup-rounds <n>',
    'pipeline rounds before the measured ones, not counted (the services JIT-compile their code)',
    '1',
  )
  .option(
    '--without-compaction',
    'deploy no compaction service: the session path alone (publish → projected), to see what compaction costs the pipeline',
  )
  .option('--latency-rates <list>', 'offered loads of the latency phase, msg/s', '10,25,50')
  .option('--data <path>', 'transcripts', resolve(repoRoot, '../shared/data/sessions.jsonl'))
  .option('--out <path>', 'results file', resolve(repoRoot, 'bench/results/pipeline.json'))
  .option(
    '--phases <list>',
    'comma-separated subset of ceiling,pipeline,latency,growth,scaleout',
    'ceiling,pipeline,latency,growth,scaleout',
  )
  .parse();
const opts = program.opts<{
  quick?: boolean;
  profile?: boolean;
  build: boolean;
  keepStack?: boolean;
  countRequests?: boolean;
  withoutCompaction?: boolean;
  latencyRates: string;
  rounds: string;
  warmupRounds: string;
  dist?: string;
  data: string;
  out: string;
  phases: string;
}>();
const phases = new Set(opts.phases.split(','));
if (opts.withoutCompaction && ['growth', 'scaleout'].some((p) => phases.has(p)))
  throw new Error('--without-compaction measures the pipeline and latency phases only: pass --phases ceiling,pipeline');
const Q = opts.quick === true;
const wholeNumber = (value: string, name: string, min: number): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}: a whole number ≥ ${min}, not ${value}`);
  return n;
};
const ROUNDS = wholeNumber(opts.rounds, '--rounds', 1);
const WARMUP_ROUNDS = wholeNumber(opts.warmupRounds, '--warmup-rounds', 0);

/** Sizes of the run (quick: a smoke run of well under a minute of measuring). */
const SIZE = {
  ceilingRecords: Q ? 3000 : 10_000,
  pipelineSessions: Q ? 50 : 200,
  pipelineRecords: Q ? 3000 : 10_000,
  latencySessions: Q ? 20 : 50,
  latencySeconds: Q ? 4 : 15,
  latencyWarmupSeconds: Q ? 1 : 5,
  idleSeconds: Q ? 2 : 10,
  growth: Q
    ? [
        { size: 100, sessions: 4 },
        { size: 1000, sessions: 1 },
      ]
    : [
        { size: 100, sessions: 10 },
        { size: 1000, sessions: 3 },
        { size: 10_000, sessions: 1 },
      ],
  getSeconds: Q ? 2 : 5,
  getConnections: 8,
  scaleRecords: Q ? 3000 : 8000,
  scaleSessions: Q ? 60 : 120,
};
/** The sessions' configuration: a 32k window (compactions happen, as in the README's walkthrough). */
const SESSION_CONFIG = { provider: 'anthropic', contextWindow: 32_000, maxOutputTokens: 4000 };
const PUBLISH_BATCH = 100;
const PUBLISH_IN_FLIGHT = 4;
const PARTITIONS = 6;

const run = `${Date.now().toString(36)}`;
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

// ---------------------------------------------------------------------------------------------------
// Publishing: the same producer settings for the ceiling and the pipeline

interface Sent {
  readonly sessionId: string;
  readonly partition: number;
  offset: number;
}

/** Sends the events in batches (several in flight); returns each event's partition and offset. */
async function publish(producer: Producer, topic: string, events: readonly AnyEvent[]): Promise<Sent[]> {
  const sent: Sent[] = events.map((e) => ({
    sessionId: e.sessionId,
    partition: keyPartition(topic, e.sessionId, PARTITIONS),
    offset: -1,
  }));
  let next = 0;
  const worker = async () => {
    for (;;) {
      const from = next;
      if (from >= events.length) return;
      const to = Math.min(events.length, from + PUBLISH_BATCH);
      next = to;
      const messages: Message[] = [];
      for (let i = from; i < to; i++) messages.push({ ...record(events[i]!), partition: sent[i]!.partition });
      const meta = await producer.send({ topic, acks: -1, messages });
      const base = new Map(meta.map((m) => [m.partition, Number(m.baseOffset)]));
      const count = new Map<number, number>();
      for (let i = from; i < to; i++) {
        const p = sent[i]!.partition;
        const k = count.get(p) ?? 0;
        count.set(p, k + 1);
        sent[i]!.offset = base.get(p)! + k;
      }
    }
  };
  await Promise.all(Array.from({ length: PUBLISH_IN_FLIGHT }, worker));
  return sent;
}

/** Interleaves `perSession` messages of every session (round robin), the way many agents publish at once. */
function interleaved(sessions: readonly BenchSession[], perSession: number): AnyEvent[] {
  const out: AnyEvent[] = [];
  for (let k = 0; k < perSession; k++) for (const s of sessions) out.push(s.next());
  return out;
}

const lastOffsets = (sent: readonly Sent[]) => {
  const last = new Map<string, number>();
  for (const s of sent) last.set(s.sessionId, Math.max(s.offset, last.get(s.sessionId) ?? -1));
  return last;
};

/** Polls the read model until every session reached its offset; returns when (ms, nowMs clock). */
async function waitVisible(db: Db, targets: Map<string, number>, timeoutMs: number, everyMs = 20): Promise<number> {
  const pending = new Map(targets);
  const deadline = nowMs() + timeoutMs;
  let progressAt = nowMs();
  let lastPending = pending.size;
  while (pending.size > 0) {
    if (pending.size < lastPending) [progressAt, lastPending] = [nowMs(), pending.size];
    if (nowMs() - progressAt > 90_000) {
      const sample = [...pending].slice(0, 3);
      const docs = await db
        .collection<{ _id: string }>('sessions')
        .find({ _id: { $in: sample.map(([id]) => id) } })
        .toArray();
      throw new Error(
        `no session became visible for 90 s (${pending.size} pending): waiting for ${JSON.stringify(sample)}, stored ${JSON.stringify(docs)}`,
      );
    }
    const docs = await db
      .collection<{ _id: string; lastOffset: number }>('sessions')
      .find({ _id: { $in: [...pending.keys()] } }, { projection: { lastOffset: 1 } })
      .toArray();
    const at = nowMs();
    for (const d of docs) if (d.lastOffset >= pending.get(d._id)!) pending.delete(d._id);
    if (pending.size === 0) return at;
    if (at > deadline) throw new Error(`${pending.size} sessions not visible within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
  return nowMs();
}

/**
 * Waits until the projector has projected every sent record, and returns when: its group's committed offset
 * of each partition is past the partition's last sent record (it commits after the read-model writes are
 * durable). Asks Kafka, not the read model, so the measure does not load FerretDB: polling the sessions with
 * `_id: {$in}` every 20 ms scanned the table and took CPU from the pipeline it measured. The read model is
 * then checked once (outside the timing): every session must be at its last offset.
 */
async function waitProjected(d: Deployment, kafka: Kafka, topic: string, sent: readonly Sent[], timeoutMs: number) {
  const targets = new Map<number, number>();
  for (const s of sent) targets.set(s.partition, Math.max(s.offset, targets.get(s.partition) ?? -1));
  const admin = kafka.admin();
  await admin.connect();
  let at: number;
  try {
    const deadline = nowMs() + timeoutMs;
    for (;;) {
      const [committed] = await admin.fetchOffsets({ groupId: `${d.prefix}.session-projector`, topics: [topic] });
      const done = new Map(committed!.partitions.map((p) => [p.partition, Number(p.offset)]));
      at = nowMs();
      const behind = [...targets].filter(([p, last]) => (done.get(p) ?? -1) <= last);
      if (behind.length === 0) break;
      if (at > deadline) throw new Error(`the projector is behind on partitions ${JSON.stringify(behind)}`);
      await sleep(20);
    }
  } finally {
    await admin.disconnect();
  }
  await waitVisible(d.db, lastOffsets(sent), 10_000);
  return at;
}

/** Waits until a consumer group has committed every record of the topic; returns when. */
async function waitGroupDone(kafka: Kafka, groupId: string, topic: string, timeoutMs: number): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const deadline = nowMs() + timeoutMs;
    for (;;) {
      const [high, [committed]] = await Promise.all([
        admin.fetchTopicOffsets(topic),
        admin.fetchOffsets({ groupId, topics: [topic] }),
      ]);
      const done = new Map(committed!.partitions.map((p) => [p.partition, Number(p.offset)]));
      const behind = high.reduce(
        (a, w) => a + Math.max(0, Number(w.high) - Math.max(0, done.get(w.partition) ?? 0)),
        0,
      );
      if (behind === 0) return nowMs();
      if (nowMs() > deadline) throw new Error(`group ${groupId} still ${behind} records behind on ${topic}`);
      await sleep(100);
    }
  } finally {
    await admin.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------------
// 1. Ceiling

interface CeilingResult {
  records: number;
  megabytes: number;
  kafkaProducePerSec: number;
  kafkaConsumePerSec: number;
  mongoBulkPerSec: number;
  chainPerSec: number;
  bottleneckPerSec: number;
  cpuMs: { produce: CpuSnapshot; consume: CpuSnapshot; mongo: CpuSnapshot; chain: CpuSnapshot };
}

/** The round with the highest `score` (the first of equals). */
function bestOf<T>(rounds: readonly T[], score: (r: T) => number): T {
  return rounds.reduce((best, r) => (score(r) > score(best) ? r : best));
}

async function ceiling(
  kafka: Kafka,
  producer: Producer,
  mongo: MongoClient,
  pool: ReturnType<typeof loadMessagePool>,
  pids: Record<string, number | undefined>,
  tag: string,
): Promise<CeilingResult> {
  const id = `${run}_${tag}`;
  const topic = `bench_raw_${id}`;
  await ensureTopics(kafka, [topic], PARTITIONS);
  const sessions = Array.from(
    { length: SIZE.pipelineSessions },
    (_, i) => new BenchSession(`raw-${id}-${i}`, pool, i * 997),
  );
  const events = interleaved(sessions, Math.ceil(SIZE.ceilingRecords / sessions.length)).slice(0, SIZE.ceilingRecords);
  const megabytes = events.reduce((a, e) => a + record(e).value.length, 0) / 1e6;

  // Produce
  let c0 = cpuSnapshot(pids);
  let t0 = nowMs();
  await publish(producer, topic, events);
  const produceMs = nowMs() - t0;
  const produceCpu = cpuDelta(c0, cpuSnapshot(pids));
  log(`ceiling: produced ${events.length} records (${megabytes.toFixed(1)} MB) in ${produceMs.toFixed(0)} ms`);

  // Consume (a consumer group, batches, commit per batch, JSON decode of each record)
  const consumeOnce = async (
    groupId: string,
    work?: (batch: { partition: number; values: Buffer[] }) => Promise<void>,
  ) => {
    const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let seen = 0;
    let first = 0;
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const c = cpuSnapshot(pids);
    await consumer.run({
      autoCommit: false,
      partitionsConsumedConcurrently: 3,
      eachBatch: async ({ batch, resolveOffset }) => {
        if (first === 0) first = nowMs();
        const values = batch.messages.map((m) => m.value!);
        if (work) await work({ partition: batch.partition, values });
        else for (const v of values) JSON.parse(v.toString());
        const last = batch.messages[batch.messages.length - 1]!.offset;
        resolveOffset(last);
        await consumer.commitOffsets([{ topic, partition: batch.partition, offset: String(Number(last) + 1) }]);
        seen += batch.messages.length;
        if (seen >= events.length) resolveDone();
      },
    });
    await done;
    const ms = nowMs() - first;
    const cpu = cpuDelta(c, cpuSnapshot(pids));
    await consumer.disconnect();
    return { ms, cpu };
  };
  const consumed = await consumeOnce(`bench_raw_consume_${id}`);
  log(`ceiling: consumed ${events.length} records in ${consumed.ms.toFixed(0)} ms`);

  // MongoDB: the projector's documents, written the projector's way (insertMany unordered + guarded session updates)
  const counter = configure({ provider: 'anthropic', contextWindow: 32_000 }).counter;
  const positions = new Map<string, number>();
  const docsOf = (batch: readonly AnyEvent[], partition: number, baseOffset: number) => {
    const messages = [];
    const touched = new Map<string, { messageCount: number; lastOffset: number }>();
    let i = 0;
    for (const e of batch) {
      if (e.type !== 'message.appended') continue;
      const position = positions.get(e.sessionId) ?? 0;
      positions.set(e.sessionId, position + 1);
      messages.push(evolveMessage(null, e, { position, offset: baseOffset + i, counter }));
      touched.set(e.sessionId, { messageCount: position + 1, lastOffset: baseOffset + i });
      i++;
    }
    const ops: AnyBulkWriteOperation<{ _id: string }>[] = [...touched].map(([id, s]) => ({
      updateOne: {
        filter: { _id: id },
        update: { $set: { ...s, partition, tenant: 'bench', updatedAt: new Date().toISOString() } },
        upsert: true,
      },
    }));
    return { messages, ops };
  };
  const writeBatch = async (db: Db, docs: ReturnType<typeof docsOf>) => {
    if (docs.messages.length > 0)
      await db.collection('session_messages').insertMany(docs.messages as never[], { ordered: false });
    if (docs.ops.length > 0) await db.collection<{ _id: string }>('sessions').bulkWrite(docs.ops, { ordered: false });
  };
  const mongoDb = mongo.db(`bench_raw_mongo_${id}`);
  await mongoDb.collection('session_messages').createIndex({ sessionId: 1, position: 1 }, { unique: true });
  // Batches as a consumer sees them: per partition, ~the size kafkajs hands over; 3 partitions at once.
  const byPartition = new Map<number, AnyEvent[]>();
  for (const e of events) {
    const p = keyPartition(topic, e.sessionId, PARTITIONS);
    byPartition.set(p, [...(byPartition.get(p) ?? []), e]);
  }
  const batches: { partition: number; events: AnyEvent[] }[] = [];
  const BATCH = 500;
  for (const [partition, list] of byPartition)
    for (let i = 0; i < list.length; i += BATCH) batches.push({ partition, events: list.slice(i, i + BATCH) });
  c0 = cpuSnapshot(pids);
  t0 = nowMs();
  // One partition's batches in order, three partitions at once (as partitionsConsumedConcurrently: 3).
  await Promise.all(
    Array.from({ length: 3 }, async (_, worker) => {
      for (const b of batches)
        if (b.partition % 3 === worker) await writeBatch(mongoDb, docsOf(b.events, b.partition, 0));
    }),
  );
  const mongoMs = nowMs() - t0;
  const mongoCpu = cpuDelta(c0, cpuSnapshot(pids));
  log(`ceiling: MongoDB bulk-wrote ${events.length} message documents in ${mongoMs.toFixed(0)} ms`);

  // The chain: consume → decode → bulk write → commit (the thinnest code doing the pipeline's I/O)
  positions.clear();
  const chainDb = mongo.db(`bench_raw_chain_${id}`);
  await chainDb.collection('session_messages').createIndex({ sessionId: 1, position: 1 }, { unique: true });
  const chain = await consumeOnce(`bench_raw_chain_${id}`, async ({ partition, values }) => {
    const decoded = values.map((v) => JSON.parse(v.toString()) as AnyEvent);
    await writeBatch(chainDb, docsOf(decoded, partition, 0));
  });
  log(`ceiling: chain consumed and wrote ${events.length} records in ${chain.ms.toFixed(0)} ms`);
  await Promise.all([mongoDb.dropDatabase(), chainDb.dropDatabase()]).catch(() => undefined);

  const rate = (ms: number) => round((events.length * 1000) / ms, 0);
  const result = {
    records: events.length,
    megabytes: round(megabytes, 1),
    kafkaProducePerSec: rate(produceMs),
    kafkaConsumePerSec: rate(consumed.ms),
    mongoBulkPerSec: rate(mongoMs),
    chainPerSec: rate(chain.ms),
    bottleneckPerSec: 0,
    cpuMs: { produce: produceCpu, consume: consumed.cpu, mongo: mongoCpu, chain: chain.cpu },
  };
  result.bottleneckPerSec = Math.min(result.kafkaProducePerSec, result.kafkaConsumePerSec, result.mongoBulkPerSec);
  return result;
}

// ---------------------------------------------------------------------------------------------------
// The services

interface Deployment {
  readonly prefix: string;
  readonly db: Db;
  readonly env: Record<string, string>;
  readonly services: BenchService[];
  session: BenchService;
  stop(): Promise<void>;
}

const PROFILE_DIR = resolve(tmpdir(), `ctxledger-bench-profiles-${run}`);
/** The services' output, one file per process (outside the repository). */
const LOG_DIR = resolve(tmpdir(), `ctxledger-bench-${run}`);

async function deploy(
  settings: ReturnType<typeof benchStackSettings>,
  kafka: Kafka,
  mongo: MongoClient,
  name: string,
  which: { session?: boolean; compaction?: number; summarizer?: boolean },
  extraEnv: Record<string, string> = {},
): Promise<Deployment> {
  const prefix = `bench_${name}_${run}`;
  await ensureTopics(kafka, allTopics(prefix), PARTITIONS);
  const env = {
    KAFKA_BROKERS: settings.brokers.join(','),
    MONGODB_URI: withDatabase(settings.mongoUri, prefix),
    TOPIC_PREFIX: prefix,
    // The per-tenant rate limit would answer the GET load with 429: the benchmark measures the service.
    RATE_LIMIT_REQUESTS: '0',
    ...extraEnv,
  };
  const profileDir = opts.profile ? PROFILE_DIR : undefined;
  const logDir = LOG_DIR;
  const services: BenchService[] = [];
  const starts: Promise<BenchService>[] = [];
  if (which.summarizer)
    starts.push(startBuiltService('summarizer-service', env, { profileDir, logDir, dist: opts.dist }));
  for (let i = 0; i < (which.compaction ?? 0); i++)
    starts.push(startBuiltService('compaction-service', env, { profileDir, logDir, dist: opts.dist }));
  if (which.session) starts.push(startBuiltService('session-service', env, { profileDir, logDir, dist: opts.dist }));
  const settled = await Promise.allSettled(starts);
  for (const s of settled) if (s.status === 'fulfilled') services.push(s.value);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(services.map((x) => x.stop()));
    throw failed.reason;
  }
  return {
    prefix,
    db: mongo.db(prefix),
    env,
    services,
    session: services.find((s) => s.name === 'session-service')!,
    async stop() {
      await Promise.all(services.map((s) => s.stop()));
    },
  };
}

const pidsOf = (d: Deployment | undefined, stack: ReturnType<typeof benchStackSettings>) => {
  const pids: Record<string, number | undefined> = { kafka: stack.kafkaPid, ferretdb: stack.mongoPid };
  let compaction = 0;
  for (const s of d?.services ?? []) {
    const key = s.name === 'compaction-service' ? `compaction-service#${++compaction}` : s.name;
    pids[key] = s.pid;
  }
  return pids;
};

/** Runs a phase; with a counting proxy, the services' MongoDB requests made during it go into its result. */
async function counted<T extends { requests?: Record<string, RequestCount> }>(
  proxy: CountingProxy | undefined,
  phase: () => Promise<T>,
): Promise<T> {
  proxy?.take(); // what came before (boot, the previous phase) is not the phase's
  const result = await phase();
  if (!proxy) return result;
  const requests = [...proxy.take()].sort((a, b) => b[1].requests - a[1].requests);
  log(
    `MongoDB requests: ${requests
      .map(
        ([key, n]) =>
          `${key} ${n.requests}${n.documents ? ` (${n.documents} documents)` : ''}${n.ms ? ` [ms p50 ${n.ms.p50}, p99 ${n.ms.p99}, max ${n.ms.max}]` : ''}`,
      )
      .join(', ')}`,
  );
  return { ...result, requests: Object.fromEntries(requests) };
}

// ---------------------------------------------------------------------------------------------------
// 2. Pipeline throughput

interface PipelineResult {
  sessions: number;
  records: number;
  publishPerSec: number;
  visiblePerSec: number;
  /** Undefined with --without-compaction. */
  compactionDonePerSec?: number;
  cpuMs: CpuSnapshot;
  cpuMsPerMessage: Record<string, number>;
  /** With --count-requests: the services' MongoDB requests of the round, by `command collection`. */
  requests?: Record<string, RequestCount>;
}

async function pipeline(
  d: Deployment,
  kafka: Kafka,
  producer: Producer,
  pool: ReturnType<typeof loadMessagePool>,
  pids: Record<string, number | undefined>,
  tag: string,
): Promise<PipelineResult> {
  const topic = topicNames(d.prefix).sessionEvents;
  const sessions = Array.from(
    { length: SIZE.pipelineSessions },
    (_, i) => new BenchSession(`p-${run}-${tag}-${i}`, pool, i * 1013),
  );
  // Configure every session and wait until visible (the groups have joined, the caches are warm).
  const configured = await publish(
    producer,
    topic,
    sessions.map((s) => s.configured(SESSION_CONFIG)),
  );
  await waitProjected(d, kafka, topic, configured, 60_000);
  const events = interleaved(sessions, Math.ceil(SIZE.pipelineRecords / sessions.length));
  const c0 = cpuSnapshot(pids);
  const t0 = nowMs();
  const sent = await publish(producer, topic, events);
  const published = nowMs();
  const visible = await waitProjected(d, kafka, topic, sent, 300_000);
  const cpu = cpuDelta(c0, cpuSnapshot(pids));
  const compactionDone = opts.withoutCompaction
    ? undefined
    : await waitGroupDone(kafka, `${d.prefix}.compaction`, topic, 300_000);
  const perMessage: Record<string, number> = {};
  for (const [k, v] of Object.entries(cpu)) perMessage[k] = round((v * 1000) / events.length, 0); // µs
  return {
    sessions: sessions.length,
    records: events.length,
    publishPerSec: round((events.length * 1000) / (published - t0), 0),
    visiblePerSec: round((events.length * 1000) / (visible - t0), 0),
    ...(compactionDone !== undefined && {
      compactionDonePerSec: round((events.length * 1000) / (compactionDone - t0), 0),
    }),
    cpuMs: cpu,
    cpuMsPerMessage: perMessage,
  };
}

// ---------------------------------------------------------------------------------------------------
// 3a. Publish → visible latency at a steady offered load

interface LatencyResult {
  offeredPerSec: number;
  achievedPerSec: number;
  samples: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Messages whose GET still waited after 30 s (504; not in the percentiles). */
  notVisibleWithin30s: number;
  /** Of the latency: publish → acknowledged by Kafka (acks all). */
  publishAckedP50: number;
  /** CPU of each process over the phase, % of one core. */
  cpuPercent: Record<string, number>;
  /** With --count-requests: the services' MongoDB requests of the run, by `command collection`. */
  requests?: Record<string, RequestCount>;
}

async function latency(
  d: Deployment,
  kafka: Kafka,
  producer: Producer,
  pool: ReturnType<typeof loadMessagePool>,
  rate: number,
  pids: Record<string, number | undefined>,
): Promise<LatencyResult> {
  const topic = topicNames(d.prefix).sessionEvents;
  const sessions = Array.from(
    { length: SIZE.latencySessions },
    (_, i) => new BenchSession(`l${rate}-${run}-${i}`, pool, i * 331),
  );
  const warm = await publish(producer, topic, [
    ...sessions.map((s) => s.configured(SESSION_CONFIG)),
    ...interleaved(sessions, 5),
  ]);
  await waitProjected(d, kafka, topic, warm, 300_000);
  // Steady state: nothing left of an earlier phase (summaries, blocks) in any consumer's way.
  await waitGroupDone(kafka, `${d.prefix}.compaction`, topic, 300_000);
  await waitGroupDone(kafka, `${d.prefix}.session-projector`, topicNames(d.prefix).blocks, 300_000);
  await waitGroupDone(kafka, `${d.prefix}.session-projector`, topic, 300_000);

  // Visible = what an agent reads before its next model call: `GET …/history?after=<offset>` answers once the
  // read model has the message (it waits in the service, woken by the projector; no polling by the bench).
  const agent = new http.Agent({ keepAlive: true });
  let k = 0;
  const offer = async (seconds: number) => {
    const latencies: number[] = [];
    const acked: number[] = [];
    let unseen = 0;
    const start = nowMs();
    let sentCount = 0;
    const inflight: Promise<void>[] = [];
    while (nowMs() - start < seconds * 1000) {
      const due = Math.floor(((nowMs() - start) / 1000) * rate);
      while (sentCount < due) {
        const s = sessions[k++ % sessions.length]!;
        const event = s.next();
        const t0 = nowMs();
        const partition = keyPartition(topic, s.id, PARTITIONS);
        inflight.push(
          producer.send({ topic, acks: -1, messages: [{ ...record(event), partition }] }).then(async ([m]) => {
            acked.push(nowMs() - t0);
            const path = `/v1/sessions/${s.id}/history?after=${m!.baseOffset}&waitMs=30000`;
            const r = await httpGet(agent, d.session.url, path);
            if (r.status === 200) latencies.push(nowMs() - t0);
            else if (r.status === 504) unseen++;
            else throw new Error(`GET ${path}: ${r.status} ${r.body.slice(0, 300)}`);
          }),
        );
        sentCount++;
      }
      await sleep(2);
    }
    const elapsed = nowMs() - start;
    await Promise.all(inflight);
    return { latencies, acked, unseen, sentCount, elapsed, start };
  };
  // The same load first, not measured: the single-message path (a fetch, a write and a waiting GET per message) is
  // not the pipeline's bulk path, and a latency phase run alone starts on services and a broker no load has warmed.
  await offer(SIZE.latencyWarmupSeconds);
  const c0 = cpuSnapshot(pids);
  const { latencies, acked, unseen, sentCount, elapsed, start } = await offer(SIZE.latencySeconds);
  const cpu = cpuDelta(c0, cpuSnapshot(pids));
  agent.destroy();
  const sorted = sortNum(latencies);
  return {
    offeredPerSec: round(rate, 0),
    achievedPerSec: round((sentCount * 1000) / elapsed, 0),
    samples: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? NaN),
    notVisibleWithin30s: unseen,
    publishAckedP50: round(percentile(sortNum(acked), 50)),
    cpuPercent: Object.fromEntries(Object.entries(cpu).map(([k, ms]) => [k, round((ms * 100) / (nowMs() - start), 0)])),
  };
}

// ---------------------------------------------------------------------------------------------------
// 4. Growth (CPU per message as sessions grow) and 3b. GET latency at 100 / 1,000 / 10,000 messages

interface GrowthBand {
  from: number;
  to: number;
  messages: number;
  compactionUsPerMessage: number;
  sessionUsPerMessage: number;
  visiblePerSec: number;
}
interface GetResult {
  messages: number;
  connections: number;
  requests: number;
  perSec: number;
  p50: number;
  p99: number;
  /** One client, one request at a time (no queueing behind the other clients on 2 cores). */
  singleClientP50: number;
  singleClientP99: number;
  responseKB: number;
  effectiveMessages: number;
  activeBlocks: number;
}

async function growth(
  d: Deployment,
  kafka: Kafka,
  producer: Producer,
  pool: ReturnType<typeof loadMessagePool>,
  pids: Record<string, number | undefined>,
) {
  const topic = topicNames(d.prefix).sessionEvents;
  const groups = SIZE.growth.map((g, gi) => ({
    size: g.size,
    sessions: Array.from(
      { length: g.sessions },
      (_, i) => new BenchSession(`g${g.size}-${run}-${i}`, pool, gi * 7919 + i * 2953),
    ),
  }));
  const all = groups.flatMap((g) => g.sessions);
  const cfg = await publish(
    producer,
    topic,
    all.map((s) => s.configured(SESSION_CONFIG)),
  );
  await waitProjected(d, kafka, topic, cfg, 60_000);
  await waitGroupDone(kafka, `${d.prefix}.compaction`, topic, 60_000);
  const bands: GrowthBand[] = [];
  let from = 0;
  for (const g of groups) {
    const growing = all.filter(
      (s) => s.position < g.size && groups.find((x) => x.sessions.includes(s))!.size >= g.size,
    );
    const events = interleaved(growing, g.size - from);
    const c0 = cpuSnapshot(pids);
    const t0 = nowMs();
    const sent = await publish(producer, topic, events);
    const visible = await waitProjected(d, kafka, topic, sent, 600_000);
    await waitGroupDone(kafka, `${d.prefix}.compaction`, topic, 600_000);
    await waitGroupDone(kafka, `${d.prefix}.session-projector`, topicNames(d.prefix).blocks, 600_000);
    const cpu = cpuDelta(c0, cpuSnapshot(pids));
    bands.push({
      from,
      to: g.size,
      messages: events.length,
      compactionUsPerMessage: round((cpu['compaction-service#1']! * 1000) / events.length, 0),
      sessionUsPerMessage: round((cpu['session-service']! * 1000) / events.length, 0),
      visiblePerSec: round((events.length * 1000) / (visible - t0), 0),
    });
    log(`growth: ${from} → ${g.size} messages: ${JSON.stringify(bands[bands.length - 1])}`);
    from = g.size;
  }
  // Let the summaries settle (summary results come back on the session stream, blocks after them).
  await sleep(1000);
  await waitGroupDone(kafka, `${d.prefix}.compaction`, topic, 120_000);
  await waitGroupDone(kafka, `${d.prefix}.session-projector`, topicNames(d.prefix).blocks, 120_000);

  const gets: GetResult[] = [];
  for (const g of groups) {
    const s = g.sessions[0]!;
    const path = `/v1/sessions/${s.id}/history?format=anthropic`;
    gets.push(await getLoad(d.session.url, path, g.size));
    log(`GET ${g.size}: ${JSON.stringify(gets[gets.length - 1])}`);
  }
  return { bands, gets };
}

/** One GET of the session service as the bench tenant, on a keep-alive agent. */
/**
 * One GET on a keep-alive agent. A request on a kept socket that the server closed meanwhile (its keep-alive
 * timeout) fails with ECONNRESET before anything was sent: that one is sent again on a new socket (the retry
 * Node's http documentation gives for `reusedSocket`).
 */
function httpGet(agent: http.Agent, base: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(path, base);
  return new Promise<{ status: number; body: string }>((done, fail) => {
    const req = http.get(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, agent, headers: { 'x-tenant': 'bench' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', fail);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      req.reusedSocket && error.code === 'ECONNRESET' ? httpGet(agent, base, path).then(done, fail) : fail(error),
    );
  });
}

/** Concurrent keep-alive clients on one URL for a while; latency per request by hrtime (sub-ms resolution). */
async function getLoad(base: string, path: string, messages: number): Promise<GetResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: SIZE.getConnections });
  const get = () => httpGet(agent, base, path);
  const first = await get(); // warms the service's message cache, checks the answer
  if (first.status !== 200) throw new Error(`GET ${path}: ${first.status} ${first.body.slice(0, 300)}`);
  const body = JSON.parse(first.body) as { messageCount: number; activeBlocks: number; originalMessageCount: number };
  if (body.originalMessageCount !== messages)
    throw new Error(`GET ${path}: ${body.originalMessageCount} messages, expected ${messages}`);
  const single: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = nowMs();
    await get();
    single.push(nowMs() - t);
  }
  const latencies: number[] = [];
  const end = nowMs() + SIZE.getSeconds * 1000;
  await Promise.all(
    Array.from({ length: SIZE.getConnections }, async () => {
      while (nowMs() < end) {
        const t = nowMs();
        const r = await get();
        if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
        latencies.push(nowMs() - t);
      }
    }),
  );
  agent.destroy();
  const sorted = sortNum(latencies);
  return {
    messages,
    connections: SIZE.getConnections,
    requests: sorted.length,
    perSec: round(sorted.length / SIZE.getSeconds, 0),
    p50: round(percentile(sorted, 50), 2),
    p99: round(percentile(sorted, 99), 2),
    singleClientP50: round(percentile(sortNum(single), 50), 2),
    singleClientP99: round(percentile(sortNum(single), 99), 2),
    responseKB: round(first.body.length / 1024, 0),
    effectiveMessages: body.messageCount,
    activeBlocks: body.activeBlocks,
  };
}

// ---------------------------------------------------------------------------------------------------
// 5. Scale-out: 1 vs 2 compaction instances draining one backlog

interface ScaleResult {
  instances: number;
  records: number;
  perSec: number;
  cpuMs: CpuSnapshot;
}

async function scaleOut(
  settings: ReturnType<typeof benchStackSettings>,
  kafka: Kafka,
  mongo: MongoClient,
  producer: Producer,
  pool: ReturnType<typeof loadMessagePool>,
  instances: number,
): Promise<ScaleResult> {
  // The instances first, joined and assigned (a second member rebalances the group), then the same burst of
  // records for both runs (same sessions, same messages; summaries off: the engine alone), drained.
  const d = await deploy(settings, kafka, mongo, `scale${instances}`, { compaction: instances });
  try {
    const topic = topicNames(d.prefix).sessionEvents;
    const joined = () => d.services.every((s) => /joined group \S+compaction: \{"[^"]+":\[\d/.test(s.output()));
    for (let i = 0; i < 300 && !joined(); i++) await sleep(100);
    await sleep(2000); // let a rebalance triggered by the last member settle
    const pids = pidsOf(d, settings);
    const sessions = Array.from({ length: SIZE.scaleSessions }, (_, i) => new BenchSession(`s-${i}`, pool, i * 1187));
    const config = { ...SESSION_CONFIG, policy: { summaries: 'off' } };
    const events = [
      ...sessions.map((s) => s.configured(config)),
      ...interleaved(sessions, Math.ceil(SIZE.scaleRecords / sessions.length)),
    ];
    const c0 = cpuSnapshot(pids);
    const t0 = nowMs();
    await publish(producer, topic, events);
    const done = await waitGroupDone(kafka, `${d.prefix}.compaction`, topic, 300_000);
    const cpu = cpuDelta(c0, cpuSnapshot(pids));
    return { instances, records: events.length, perSec: round((events.length * 1000) / (done - t0), 0), cpuMs: cpu };
  } finally {
    await d.stop();
  }
}

// ---------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const load0 = loadavg();
  if (opts.build && !opts.dist) {
    for (const name of ['session-service', 'compaction-service', 'summarizer-service']) {
      log(`building ${name}`);
      execFileSync(resolve(repoRoot, 'node_modules/.bin/nest'), ['build', name], {
        cwd: repoRoot,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    }
  }
  const startedStack = !benchStackIsUp();
  if (startedStack) {
    const e = BENCH_STACK_ENV;
    log(
      `starting the bench stack instance (STACK_INSTANCE=${e.STACK_INSTANCE}, ports ${e.KAFKA_PORT}/${e.KAFKA_CONTROLLER_PORT}/${e.MONGO_PORT})`,
    );
    benchStack('up');
  }
  const settings = benchStackSettings();
  // The services reach MongoDB through the counting proxy; the bench's own client (the ceiling) does not.
  const proxy = opts.countRequests ? await startCountingProxy(settings.mongoUri) : undefined;
  const serviceSettings = proxy ? { ...settings, mongoUri: proxy.uri } : settings;
  mkdirSync(LOG_DIR, { recursive: true });
  log(`services' logs in ${LOG_DIR}`);
  if (opts.profile) {
    rmSync(PROFILE_DIR, { recursive: true, force: true });
    mkdirSync(PROFILE_DIR, { recursive: true });
  }
  const pool = loadMessagePool(opts.data);
  const kafka = new Kafka({ clientId: 'bench', brokers: settings.brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const mongo = await new mongodb.MongoClient(settings.mongoUri).connect();
  const results: Record<string, unknown> = {};
  let main: Deployment | undefined;
  try {
    const basePids = pidsOf(undefined, settings);
    if (phases.has('ceiling')) {
      // Its raw rates move by a quarter from one round to the next on this machine: the best round is the ceiling.
      const rounds: CeilingResult[] = [];
      for (let i = 1; i <= ROUNDS; i++) {
        rounds.push(await ceiling(kafka, producer, mongo, pool, basePids, `round${i}`));
        log(`ceiling, round ${i}: bottleneck ${rounds[rounds.length - 1]!.bottleneckPerSec} msg/s`);
      }
      results.ceiling = bestOf(rounds, (r) => r.bottleneckPerSec);
      results.ceilingRounds = rounds.map((r) => r.bottleneckPerSec);
    }
    if (phases.has('pipeline') || phases.has('latency') || phases.has('growth')) {
      log('starting the services');
      main = await deploy(serviceSettings, kafka, mongo, 'pipe', {
        session: true,
        compaction: opts.withoutCompaction ? 0 : 1,
        summarizer: true,
      });
      const pids = pidsOf(main, settings);
      if (phases.has('pipeline')) {
        // The first round after the services start also pays for their JIT compilation (V8's compiler threads
        // count in the process's CPU): reported apart. Then the measured rounds, the best of them as the ceiling's.
        for (let i = 1; i <= WARMUP_ROUNDS; i++) {
          const warm = await counted(proxy, () => pipeline(main!, kafka, producer, pool, pids, `warmup${i}`));
          if (i === 1) results.pipelineFirstRound = warm;
          log(`pipeline, warm-up round ${i} (not counted): ${JSON.stringify(warm)}`);
        }
        const rounds: PipelineResult[] = [];
        for (let i = 1; i <= ROUNDS; i++) {
          rounds.push(await counted(proxy, () => pipeline(main!, kafka, producer, pool, pids, `round${i}`)));
          log(`pipeline, round ${i}: ${JSON.stringify(rounds[rounds.length - 1])}`);
        }
        results.pipeline = bestOf(rounds, (r) => r.visiblePerSec);
        results.pipelineRounds = rounds.map((r) => r.visiblePerSec);
      }
      if (phases.has('latency')) {
        // What the processes use with nothing to do (heartbeats, long-polling fetches, metrics), to read the
        // latency runs' CPU against.
        const c0 = cpuSnapshot(pids);
        const t0 = nowMs();
        await sleep(SIZE.idleSeconds * 1000);
        const idle = cpuDelta(c0, cpuSnapshot(pids));
        results.idleCpuPercent = Object.fromEntries(
          Object.entries(idle).map(([k, ms]) => [k, round((ms * 100) / (nowMs() - t0), 0)]),
        );
        log(`idle: ${JSON.stringify(results.idleCpuPercent)}`);
        const runs: LatencyResult[] = [];
        for (const rate of opts.latencyRates.split(',').map(Number)) {
          runs.push(await counted(proxy, () => latency(main!, kafka, producer, pool, rate, pids)));
          log(`latency: ${JSON.stringify(runs[runs.length - 1])}`);
        }
        results.latency = runs;
      }
      if (phases.has('growth')) results.growth = await growth(main, kafka, producer, pool, pids);
      await main.stop();
      main = undefined;
    }
    if (phases.has('scaleout')) {
      const one = await scaleOut(settings, kafka, mongo, producer, pool, 1);
      log(`scale-out 1: ${JSON.stringify(one)}`);
      const two = await scaleOut(settings, kafka, mongo, producer, pool, 2);
      log(`scale-out 2: ${JSON.stringify(two)}`);
      results.scaleOut = [one, two];
    }
  } finally {
    await main?.stop().catch(() => undefined);
    await proxy?.close();
    await producer.disconnect().catch(() => undefined);
    // Drop the benchmark's databases (the stack instance is the bench's own; its topics stay until `down`).
    for (const { name } of (
      await mongo
        .db()
        .admin()
        .listDatabases()
        .catch(() => ({ databases: [] }))
    ).databases) {
      if (name.startsWith('bench_') && name.endsWith(run))
        await mongo
          .db(name)
          .dropDatabase()
          .catch(() => undefined);
    }
    await mongo.close();
    if (startedStack && !opts.keepStack) {
      log('stopping the bench stack instance');
      benchStack('down');
    }
  }
  if (opts.profile) {
    results.profile = Object.fromEntries(
      ['session-service', 'compaction-service', 'summarizer-service'].map((s) => [
        s,
        summarizeProfiles(PROFILE_DIR, s),
      ]),
    );
  }
  const machine = {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGB: round(totalmem() / 2 ** 30, 0),
    node: process.version,
    loadAverageStart: load0.map((x) => round(x, 2)),
    loadAverageEnd: loadavg().map((x) => round(x, 2)),
  };
  const out = {
    startedAt,
    quick: Q,
    rounds: ROUNDS,
    warmupRounds: WARMUP_ROUNDS,
    machine,
    sizes: SIZE,
    sessionConfig: SESSION_CONFIG,
    ...results,
  };
  mkdirSync(dirname(opts.out), { recursive: true });
  writeFileSync(opts.out, `${JSON.stringify(out, null, 2)}\n`);
  print(out as never);
  log(`wrote ${opts.out}`);
}

/** `kafka 172`, one process a line. */
const perProcess = (cpu: Record<string, number>): string =>
  Object.entries(cpu)
    .map(([k, v]) => `${k} ${v}`)
    .join('\n');

function print(r: {
  machine: { cpu: string; cores: number; node: string; loadAverageStart: number[]; loadAverageEnd: number[] };
  ceiling?: CeilingResult;
  pipeline?: PipelineResult;
  pipelineFirstRound?: PipelineResult;
  ceilingRounds?: number[];
  pipelineRounds?: number[];
  idleCpuPercent?: Record<string, number>;
  latency?: LatencyResult[];
  growth?: { bands: GrowthBand[]; gets: GetResult[] };
  scaleOut?: ScaleResult[];
  profile?: Record<string, ReturnType<typeof summarizeProfiles>>;
}): void {
  const t = new Table({ head: ['measure', 'value', 'ratio / note'], style: { head: [] } });
  const c = r.ceiling;
  if (c) {
    t.push(['ceiling: kafkajs produce (msg/s)', c.kafkaProducePerSec, `${c.records} records, ${c.megabytes} MB`]);
    t.push(['ceiling: consumer group consume (msg/s)', c.kafkaConsumePerSec, '']);
    t.push(['ceiling: MongoDB-wire bulk writes (msg/s)', c.mongoBulkPerSec, 'message inserts + session updates']);
    t.push([
      'ceiling: bottleneck = min of the three (msg/s)',
      c.bottleneckPerSec,
      r.ceilingRounds && r.ceilingRounds.length > 1 ? `1.00; best of rounds ${r.ceilingRounds.join(', ')}` : '1.00',
    ]);
    t.push([
      'ceiling: consume → bulk write → commit (msg/s)',
      c.chainPerSec,
      `${round(c.chainPerSec / c.bottleneckPerSec, 2)} of the bottleneck`,
    ]);
  }
  const p = r.pipeline;
  if (p) {
    t.push(['pipeline: publish (msg/s)', p.publishPerSec, `${p.sessions} sessions, ${p.records} messages`]);
    const rounds =
      r.pipelineRounds && r.pipelineRounds.length > 1 ? `; best of rounds ${r.pipelineRounds.join(', ')}` : '';
    t.push([
      'pipeline: publish → visible (msg/s)',
      p.visiblePerSec,
      c
        ? `${round(p.visiblePerSec / c.bottleneckPerSec, 2)} of the ceiling, ${round(p.visiblePerSec / c.chainPerSec, 2)} of the chain${rounds}`
        : rounds.slice(2),
    ]);
    if (p.compactionDonePerSec !== undefined)
      t.push([
        'pipeline: publish → compaction done (msg/s)',
        p.compactionDonePerSec,
        c ? `${round(p.compactionDonePerSec / c.bottleneckPerSec, 2)} of the ceiling` : '',
      ]);
    else t.push(['pipeline: without the compaction service (--without-compaction)', '', 'the session path alone']);
    t.push(['pipeline: CPU µs per message by process', perProcess(p.cpuMsPerMessage), 'user+system, /proc']);
  }
  const f = r.pipelineFirstRound;
  if (f) {
    t.push([
      'pipeline, first round after the services start: publish → visible (msg/s)',
      f.visiblePerSec,
      `${c ? `${round(f.visiblePerSec / c.bottleneckPerSec, 2)} of the ceiling; ` : ''}warm-up, not counted above`,
    ]);
    t.push([
      'pipeline, first round: CPU µs per message by process',
      perProcess(f.cpuMsPerMessage),
      'JIT compilation included',
    ]);
  }
  if (r.idleCpuPercent) {
    const busy = totalCpu(r.idleCpuPercent);
    t.push([
      'idle CPU of the deployment (% of one core)',
      `${busy}%`,
      `before the latency runs, ${SIZE.idleSeconds} s with no load: ${JSON.stringify(r.idleCpuPercent)}`,
    ]);
  }
  for (const l of r.latency ?? []) {
    const busy = totalCpu(l.cpuPercent);
    t.push([
      `publish → visible p50 / p95 / p99 (ms) at ${l.offeredPerSec} msg/s`,
      `${l.p50} / ${l.p95} / ${l.p99}`,
      `${l.samples} samples, until GET history?after= answers${l.notVisibleWithin30s ? `, ${l.notVisibleWithin30s} not visible within 30 s` : ''}; CPU ${busy}% of ${cpus().length * 100}%: ${JSON.stringify(l.cpuPercent)}`,
    ]);
  }
  for (const g of r.growth?.gets ?? []) {
    t.push([
      `GET history at ${g.messages} messages p50 / p99 (ms)`,
      `${g.p50} / ${g.p99}`,
      `${g.connections} clients, ${g.perSec} req/s; 1 client p50 ${g.singleClientP50} / p99 ${g.singleClientP99} ms; ${g.responseKB} KB, ${g.effectiveMessages} effective msgs, ${g.activeBlocks} blocks`,
    ]);
  }
  const bands = r.growth?.bands ?? [];
  for (const b of bands) {
    t.push([
      `CPU µs/msg, sessions growing ${b.from} → ${b.to}`,
      `compaction ${b.compactionUsPerMessage}, session ${b.sessionUsPerMessage}`,
      b === bands[0]
        ? '1.00×'
        : `${round(b.compactionUsPerMessage / bands[0]!.compactionUsPerMessage, 2)}× (compaction)`,
    ]);
  }
  const s = r.scaleOut;
  if (s && s.length === 2) {
    t.push(['scale-out: 1 compaction instance (msg/s)', s[0]!.perSec, JSON.stringify(s[0]!.cpuMs)]);
    t.push([
      'scale-out: 2 compaction instances (msg/s)',
      s[1]!.perSec,
      `${round(s[1]!.perSec / s[0]!.perSec, 2)}× ${JSON.stringify(s[1]!.cpuMs)}`,
    ]);
  }
  console.log(
    `Pipeline benchmark — ${r.machine.cores} × ${r.machine.cpu}, Node ${r.machine.node}, load average ${r.machine.loadAverageStart.join(' ')} → ${r.machine.loadAverageEnd.join(' ')}`,
  );
  console.log(t.toString());
  if (r.profile) {
    for (const [service, prof] of Object.entries(r.profile)) {
      if (prof.totalMs === 0) continue;
      const pt = new Table({
        head: [`${service}: self time by package (of ${prof.totalMs} ms sampled)`, 'ms', '%'],
        style: { head: [] },
      });
      for (const line of prof.byArea.slice(0, 8)) pt.push([line.what, line.selfMs, line.share]);
      for (const line of prof.byFunction.slice(0, 10)) pt.push([`  ${line.what}`, line.selfMs, line.share]);
      console.log(pt.toString());
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);

/** The sum over the processes ('kafka JIT' is part of 'kafka', not added). */
function totalCpu(byProcess: Record<string, number>): number {
  return Object.entries(byProcess).reduce((sum, [k, v]) => (k === 'kafka JIT' ? sum : sum + v), 0);
}
