import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import mongoose, { type Connection } from 'mongoose';
import { allTopics, encodeEvent, topicNames, type AnyEvent, type TopicNames } from '@ctxledger/contracts';
import { ensureTopics } from '@ctxledger/kafka';
import { repoRoot } from '../../tools/local-stack';
import { testConsumer } from '../support/kafka-helpers';
import { startService, type RunningService } from '../support/service-process';
import { unique } from '../support/stack-settings';

/** Helpers of the session-service tests (not a spec): a service on topics and a database of its own. */

export const withDatabase = (uri: string, db: string) =>
  uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${db}`);

export interface SessionServiceUnderTest {
  readonly prefix: string;
  readonly database: string;
  readonly topics: TopicNames;
  readonly env: Record<string, string>;
  service: RunningService;
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any }>;
  restart(): Promise<void>;
}

/** Starts the built session-service on a fresh topic prefix and database of the given stack. */
export async function startSessionService(
  name: string,
  stack: { brokers: string[]; mongoUri: string },
  extraEnv: Record<string, string> = {},
): Promise<SessionServiceUnderTest> {
  const prefix = unique(name).replace(/-/g, '_');
  const database = prefix.slice(0, 60);
  const env = {
    KAFKA_BROKERS: stack.brokers.join(','),
    MONGODB_URI: withDatabase(stack.mongoUri, database),
    TOPIC_PREFIX: prefix,
    // No authentication (tenant from X-Tenant), explicitly, unless the test configures API keys.
    ...(!('API_KEYS' in extraEnv) && !('AUTH_MODE' in extraEnv) && { AUTH_MODE: 'none' }),
    ...extraEnv,
  };
  const kafka = new Kafka({ clientId: 'session-test-admin', brokers: stack.brokers, logLevel: logLevel.NOTHING });
  await ensureTopics(kafka, allTopics(prefix));
  const it: SessionServiceUnderTest = {
    prefix,
    database,
    topics: topicNames(prefix),
    env,
    service: await startService('session-service', env),
    async call(method, path, body, headers = {}) {
      const res = await fetch(`${it.service.url}${path}`, {
        method,
        headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, body: parsed };
    },
    async restart() {
      await it.service.stop();
      it.service = await startService('session-service', env);
    },
  };
  return it;
}

/** A raw producer (kafkajs): events we write as another service would, keyed by session id. */
export class RawProducer {
  private readonly producer: Producer;
  constructor(brokers: string[]) {
    this.producer = new Kafka({ clientId: 'session-test-producer', brokers, logLevel: logLevel.NOTHING }).producer();
  }
  connect() {
    return this.producer.connect();
  }
  disconnect() {
    return this.producer.disconnect();
  }
  /** Sends events in order (one request); returns the offset of each. */
  async send(topic: string, events: readonly (AnyEvent | { key: string; value: string })[]): Promise<string[]> {
    if (events.length === 0) return [];
    const messages = events.map((e) => ('value' in e ? e : { key: e.sessionId, value: encodeEvent(e) }));
    const [meta] = await this.producer.send({ topic, acks: -1, messages });
    return messages.map((_, i) => (BigInt(meta!.baseOffset!) + BigInt(i)).toString());
  }
}

/** Everything published on a topic, read from the beginning. */
export class TopicReader {
  readonly events: AnyEvent[] = [];
  private readonly consumer: Consumer;
  constructor(
    brokers: string[],
    private readonly topic: string,
  ) {
    this.consumer = testConsumer(
      new Kafka({ clientId: 'session-test-reader', brokers, logLevel: logLevel.NOTHING }),
      'reader',
    );
  }
  async start() {
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.topic, fromBeginning: true });
    await this.consumer.run({
      eachMessage: async ({ message }) => void this.events.push(JSON.parse(message.value!.toString())),
    });
  }
  stop() {
    return this.consumer.disconnect();
  }
  async waitFor(predicate: (e: AnyEvent) => boolean, what: string, timeoutMs = 20_000): Promise<AnyEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${what} on ${this.topic} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Every document of the read model, sorted by `_id` (ids are deterministic, so they compare as they are). */
export async function readModelDocuments(mongoUri: string, database: string): Promise<Record<string, unknown[]>> {
  const connection: Connection = await mongoose.createConnection(withDatabase(mongoUri, database)).asPromise();
  try {
    const out: Record<string, unknown[]> = {};
    for (const name of ['sessions', 'session_messages', 'session_blocks']) {
      out[name] = await connection.db!.collection(name).find({}).sort({ _id: 1 }).toArray();
    }
    return out;
  } finally {
    await connection.close();
  }
}

export async function dropDatabase(mongoUri: string, database: string): Promise<void> {
  const connection = await mongoose.createConnection(withDatabase(mongoUri, database)).asPromise();
  await connection.dropDatabase().catch(() => undefined);
  await connection.close();
}

/** Runs the built app's rebuild command. */
export async function runRebuild(env: Record<string, string>, database: string): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [
      resolve(repoRoot, 'dist/apps/session-service/main.js'),
      'rebuild-projections',
      '--database',
      database,
      '--timeout-ms',
      '60000',
    ],
    { cwd: repoRoot, env: { ...process.env, ...env, LOG_FORMAT: 'text', NO_COLOR: '1' } },
  );
  return stdout + stderr;
}

export async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
