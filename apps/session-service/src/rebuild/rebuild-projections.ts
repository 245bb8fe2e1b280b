import { ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Kafka } from 'kafkajs';
import { committedOffsets, KAFKA_CLIENT, KAFKA_SETTINGS, type KafkaSettings } from '@ctxledger/kafka';
import { ProjectorOnlyModule, SESSION_SERVICE } from '../app.module';
import { projectorTransport } from '../projector/projector-transport';
import { ReadModelStore } from '../read-models/read-model.store';

export interface RebuildOptions {
  /** The database to build the read model into; its collections must be empty. */
  readonly database: string;
  readonly timeoutMs: number;
}

const USAGE = 'usage: rebuild-projections --database <name> [--timeout-ms <ms>]';

export function parseRebuildArgs(args: readonly string[]): RebuildOptions {
  const value = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const database = value('--database');
  if (!database || !/^[A-Za-z0-9_-]{1,63}$/.test(database))
    throw new Error(`${USAGE}\n  --database: 1-63 of [A-Za-z0-9_-]`);
  const timeoutMs = Number(value('--timeout-ms') ?? 600_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new Error(`${USAGE}\n  --timeout-ms: a positive integer`);
  return { database, timeoutMs };
}

/**
 * Replays the session and block streams from their first offsets into empty collections of another
 * database, with the projector's own code and a consumer group of its own, until every partition reached
 * the end it had when the rebuild started. Determinism (invariant 5): the documents equal the live ones.
 */
export async function rebuildProjections(options: RebuildOptions): Promise<void> {
  const logger = new ConsoleLogger('rebuild-projections', { json: process.env.LOG_FORMAT === 'json' });
  // The service's own environment, the read model written into the target database instead of MONGODB_URI's.
  const app = await NestFactory.create(ProjectorOnlyModule.create(options.database), { logger: ['error', 'warn'] });
  await app.init();
  const store = app.get(ReadModelStore);
  const kafka = app.get<Kafka>(KAFKA_CLIENT);
  const settings = app.get<KafkaSettings>(KAFKA_SETTINGS);
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `${settings.topicPrefix}.session-rebuild.${options.database}.${Date.now()}`;
  try {
    if (store.db.databaseName !== options.database) {
      throw new Error(
        `connected to database ${store.db.databaseName}, not ${options.database}: refusing to write there`,
      );
    }
    for (const name of ['sessions', 'messages', 'blocks'] as const) {
      const n = await store[name].estimatedDocumentCount();
      if (n > 0)
        throw new Error(`database ${options.database} already holds ${n} ${name}: rebuild into empty collections`);
    }
    const topics = [settings.topics.sessionEvents, settings.topics.blocks];
    const ends = new Map<string, bigint>();
    for (const topic of topics) {
      for (const w of await admin.fetchTopicOffsets(topic))
        if (BigInt(w.high) > BigInt(w.low)) ends.set(`${topic}:${w.partition}`, BigInt(w.high));
    }
    logger.log(
      `rebuilding ${SESSION_SERVICE} read model into ${options.database} from ${ends.size} non-empty partitions (group ${groupId})`,
    );

    app.connectMicroservice({ strategy: projectorTransport(app, groupId) }, { inheritAppConfig: true });
    await app.startAllMicroservices();
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      const committed = await committedOffsets(admin, groupId, topics);
      const behind = [...ends].filter(([tp, end]) => (committed.get(tp) ?? -1n) < end);
      if (behind.length === 0) break;
      if (Date.now() > deadline)
        throw new Error(`timed out with ${behind.length} partitions behind: ${behind.map(([tp]) => tp).join(', ')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const counts = {
      sessions: await store.sessions.countDocuments(),
      messages: await store.messages.countDocuments(),
      blocks: await store.blocks.countDocuments(),
    };
    logger.log(`rebuilt ${options.database}: ${JSON.stringify(counts)}`);
  } finally {
    await app.close();
    await admin.deleteGroups([groupId]).catch(() => undefined);
    await admin.disconnect();
  }
}
