/**
 * Readiness check for the local stack (deploy/local/stack), run with `npx tsx deploy/local/ready.ts`.
 *
 *   --kafka 127.0.0.1:9092[,...] --kafka-log <log4j file>[,...] [--kafka-out <jvm stdout>[,...]] [--kafka-pid N[,...]]
 *   --mongo mongodb://127.0.0.1:27017/ctxledger [--mongo-log <file>] [--mongo-pid N]
 *   --timeout <seconds>
 *
 * Kafka is ready when the log of each broker listed says "Kafka Server started" AND a metadata request lists them
 * all; then the topics (allTopics(TOPIC_PREFIX)) are created if missing, with the cluster's default replication
 * factor (1 on one broker, 3 on a cluster of three). MongoDB (FerretDB) is ready when `ping`
 * answers. Fails fast if a recorded pid dies; on timeout prints the tail of the relevant log.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { allTopics, DEFAULT_PARTITIONS, TOPIC_CONFIG } from '../../libs/contracts/src/topics';

const STARTED = 'Kafka Server started';
const POLL_MS = 500;

interface Options {
  kafka?: string;
  kafkaLog?: string[];
  kafkaOut?: string[];
  kafkaPid?: number[];
  mongo?: string;
  mongoLog?: string;
  mongoPid?: number;
  timeoutMs: number;
}

class NotReady extends Error {}

function parseArgs(argv: string[]): Options {
  const opts: Options = { timeoutMs: 120_000 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`missing value for ${flag}`);
    switch (flag) {
      case '--kafka':
        opts.kafka = value;
        break;
      case '--kafka-log':
        opts.kafkaLog = value.split(',');
        break;
      case '--kafka-out':
        opts.kafkaOut = value.split(',');
        break;
      case '--kafka-pid':
        opts.kafkaPid = value.split(',').map((p) => Number(p) || 0);
        break;
      case '--mongo':
        opts.mongo = value;
        break;
      case '--mongo-log':
        opts.mongoLog = value;
        break;
      case '--mongo-pid':
        opts.mongoPid = Number(value) || undefined;
        break;
      case '--timeout':
        opts.timeoutMs = Number(value) * 1000;
        break;
      default:
        throw new Error(`unknown flag ${flag}`);
    }
  }
  return opts;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

function alive(pids: number | number[] | undefined): boolean {
  if (Array.isArray(pids)) return pids.every((p) => alive(p));
  const pid = pids;
  if (!pid) return true; // nothing recorded: rely on the timeout
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z';
  } catch {
    return true;
  }
}

function tail(file: string | undefined, lines = 30): string {
  if (!file || !existsSync(file)) return '';
  const text = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  return text ? `\n--- last ${lines} lines of ${file} ---\n${text}\n---` : `\n(${file} is empty)`;
}

/** Polls `attempt` until it resolves, the process dies, or the deadline passes. */
async function waitFor<T>(
  what: string,
  deadline: number,
  pid: number | number[] | undefined,
  logs: (string | undefined)[],
  attempt: () => Promise<T>,
): Promise<T> {
  let last: string;
  for (;;) {
    if (!alive(pid)) {
      throw new Error(`${what}: process ${pid} exited before becoming ready${logs.map((f) => tail(f)).join('')}`);
    }
    try {
      return await attempt();
    } catch (err) {
      last = message(err);
    }
    if (Date.now() >= deadline) {
      const secs = Math.round((deadline - started) / 100) / 10;
      throw new Error(
        `${what} did not become ready within ${secs}s (last: ${last})${logs.map((f) => tail(f)).join('')}`,
      );
    }
    await sleep(POLL_MS);
  }
}

function kafkaClient(brokers: string): Kafka {
  return new Kafka({
    clientId: 'ctxledger-stack-ready',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2_000,
    requestTimeout: 10_000,
    retry: { retries: 0 },
  });
}

async function kafkaReady(opts: Options & { kafka: string }, deadline: number): Promise<void> {
  const logs = [...(opts.kafkaOut ?? []), ...(opts.kafkaLog ?? [])];
  const expected = opts.kafka.split(',').length;
  const clusterId = await waitFor(`Kafka at ${opts.kafka}`, deadline, opts.kafkaPid, logs, async () => {
    for (const log of opts.kafkaLog ?? []) {
      if (!(existsSync(log) && readFileSync(log, 'utf8').includes(STARTED))) {
        throw new NotReady(`${log} does not say "${STARTED}" yet`);
      }
    }
    const admin = kafkaClient(opts.kafka).admin();
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      if (cluster.brokers.length < expected)
        throw new NotReady(`metadata lists ${cluster.brokers.length} of ${expected} brokers`);
      return cluster.clusterId;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  });
  console.log(`kafka ready at ${opts.kafka} (cluster ${clusterId})`);

  const wanted = allTopics(process.env.TOPIC_PREFIX || undefined);
  const result = await waitFor(`Kafka topics at ${opts.kafka}`, deadline, opts.kafkaPid, logs, async () => {
    const admin = kafkaClient(opts.kafka).admin();
    try {
      await admin.connect();
      const existing = new Set(await admin.listTopics());
      const missing = wanted.filter((t) => !existing.has(t));
      if (missing.length > 0) {
        try {
          await admin.createTopics({
            // No replication factor: the cluster's default.replication.factor (deploy/local/stack sets it).
            topics: missing.map((topic) => ({
              topic,
              numPartitions: DEFAULT_PARTITIONS,
              configEntries: [...TOPIC_CONFIG],
            })),
            waitForLeaders: true,
            timeout: 30_000,
          });
        } catch (err) {
          // Someone else may have created some of them meanwhile; only fail if still missing.
          const now = new Set(await admin.listTopics());
          if (missing.some((t) => !now.has(t))) throw err;
        }
      }
      // Every topic must have a leader for each partition before clients use it.
      const meta = await admin.fetchTopicMetadata({ topics: wanted });
      for (const t of meta.topics) {
        if (t.partitions.length === 0 || t.partitions.some((p) => p.leader < 0)) {
          throw new NotReady(`topic ${t.name} has no leader yet`);
        }
      }
      return { created: missing, existing: wanted.filter((t) => existing.has(t)) };
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  });
  if (result.created.length > 0)
    console.log(`topics created (${DEFAULT_PARTITIONS} partitions): ${result.created.join(', ')}`);
  if (result.existing.length > 0) console.log(`topics already present: ${result.existing.join(', ')}`);
}

async function mongoReady(opts: Options & { mongo: string }, deadline: number): Promise<void> {
  await waitFor(`FerretDB at ${opts.mongo}`, deadline, opts.mongoPid, [opts.mongoLog], async () => {
    const client = new MongoClient(opts.mongo, {
      serverSelectionTimeoutMS: 2_000,
      connectTimeoutMS: 2_000,
      directConnection: true,
    });
    try {
      await client.connect();
      const res = await client.db('admin').command({ ping: 1 });
      if (res.ok !== 1) throw new NotReady(`ping answered ${JSON.stringify(res)}`);
    } finally {
      await client.close().catch(() => undefined);
    }
  });
  console.log(`mongo (FerretDB) ready at ${opts.mongo}`);
}

const started = Date.now();

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  if (!opts.kafka && !opts.mongo) throw new Error('nothing to check: pass --kafka and/or --mongo');
  const deadline = started + opts.timeoutMs;
  const { kafka, mongo } = opts;
  await Promise.all([
    kafka ? kafkaReady({ ...opts, kafka }, deadline) : Promise.resolve(),
    mongo ? mongoReady({ ...opts, mongo }, deadline) : Promise.resolve(),
  ]);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`not ready: ${message(err)}`);
    process.exit(1);
  },
);
