import type { Kafka } from 'kafkajs';
import { topicNames, type TopicNames } from '@ctxledger/contracts';
import { dropDatabase } from '../../integration/session-harness';
import { startService, type RunningService } from '../service-process';
import { unique } from '../stack-settings';
import { FaultStack, withDatabase } from './fault-stack';
import { HealthWatch } from './load';
import { dumpOutputs } from './pipeline';

/** The services a fault test loads: the compaction service and the session service (its HTTP API and projector). */
export interface Pipeline {
  readonly compaction: RunningService;
  readonly session: RunningService;
}

/** What a fault run stops and whose output it keeps at the end. */
interface Tracked {
  stop(): Promise<unknown>;
  output(): string;
}

/**
 * One fault test's world: its stack (FaultStack: its worker's outage stack when the fault stops the broker or the
 * MongoDB-wire server, the run's shared stack when it stops no part of it, or an instance of its own such as a
 * cluster), a topic prefix and a database unique to the run, the services' environment, and the teardown every
 * fault test needs — stop what it started, keep the outputs (FAULT_DUMP_DIR), hand the stack back (the outage
 * stack running, an own instance stopped), drop the databases.
 *
 *   const run = new FaultRun('fault-x', 'fx', 'outage'); // or 'shared', or ownStackPorts(20, 3)
 *   beforeAll(() => run.up({ KAFKA_SEND_TIMEOUT_MS: '2000' }), 240_000);
 *   afterAll(() => run.down(), 120_000);
 *   … const session = await run.start('session-service');
 */
export class FaultRun {
  readonly stack: FaultStack;
  readonly prefix: string;
  readonly database: string;
  readonly topics: TopicNames;
  /** The consumer groups of the services (their ids derive from the topic prefix). */
  readonly groups: { readonly compaction: string; readonly session: string };
  /** What the pipeline's consumer groups read: [group, topic] pairs, for `quiescent`. */
  readonly pipelineReads: ReadonlyArray<[groupId: string, topic: string]>;
  /** The services' environment, set by up(). */
  env: Record<string, string> = {};
  private readonly tracked = new Map<string, Tracked>();
  private readonly texts = new Map<string, () => string>();
  private readonly databases: string[];

  constructor(
    /** Names the stack instance and the dumped outputs. */
    readonly name: string,
    prefixOfIds: string,
    ports: ConstructorParameters<typeof FaultStack>[1],
  ) {
    this.stack = new FaultStack(`${name}-${process.pid}`, ports);
    this.prefix = unique(prefixOfIds).replace(/-/g, '_');
    this.database = this.prefix.slice(0, 60);
    this.databases = [this.database];
    this.topics = topicNames(this.prefix);
    this.groups = { compaction: `${this.prefix}.compaction`, session: `${this.prefix}.session-projector` };
    this.pipelineReads = [
      [this.groups.compaction, this.topics.sessionEvents],
      [this.groups.session, this.topics.sessionEvents],
      [this.groups.session, this.topics.blocks],
    ];
  }

  /** Starts the stack, creates the topics, and sets the services' environment (`settings` added to the defaults). */
  async up(settings: Record<string, string> = {}): Promise<void> {
    await this.stack.up();
    await this.stack.topics(this.prefix);
    this.env = {
      KAFKA_BROKERS: this.stack.brokers.join(','),
      MONGODB_URI: withDatabase(this.stack.mongoUri, this.database),
      TOPIC_PREFIX: this.prefix,
      AUTH_MODE: 'none',
      RATE_LIMIT_REQUESTS: '0',
      ...settings,
    };
  }

  /** A service started as a process with the run's environment; stopped and dumped by down(). */
  async start(service: string, timeoutMs = 90_000): Promise<RunningService> {
    const running = await startService(service, this.env, timeoutMs);
    this.track(service, running);
    return running;
  }

  /** The compaction and session services, started together. */
  async startPipeline(): Promise<Pipeline> {
    const [compaction, session] = await Promise.all([this.start('compaction-service'), this.start('session-service')]);
    return { compaction, session };
  }

  /** Polls both services' /health beside their consumer groups (HealthWatch); its samples are kept by down(). */
  watchPipeline(kafka: Kafka, pipeline: () => Pipeline): HealthWatch {
    const watch = new HealthWatch(
      [
        { name: 'compaction', service: () => pipeline().compaction, groupId: this.groups.compaction },
        { name: 'session', service: () => pipeline().session, groupId: this.groups.session },
      ],
      kafka,
    ).start();
    this.keep('health', () => watch.samples.map((s) => JSON.stringify(s)).join('\n'));
    return watch;
  }

  /** Something else down() stops and whose output it keeps (a service the test restarts itself). */
  track(name: string, what: Tracked): void {
    this.tracked.set(name, what);
  }

  /** More text kept with the outputs (health samples…), read at the end. */
  keep(name: string, text: () => string): void {
    this.texts.set(name, text);
  }

  /** Another database of the run (a rebuild's) for down() to drop. */
  alsoDrop(database: string): string {
    this.databases.push(database);
    return database;
  }

  async down(): Promise<void> {
    await Promise.all([...this.tracked.values()].map((t) => t.stop().catch(() => undefined)));
    dumpOutputs(this.name, {
      ...Object.fromEntries([...this.tracked].map(([n, t]) => [n, t.output()])),
      ...Object.fromEntries([...this.texts].map(([n, text]) => [n, text()])),
    });
    // First, so a MongoDB-wire server the test stopped answers again; an own instance goes with its databases.
    await this.stack.down();
    if (this.env.MONGODB_URI && this.stack.kind !== 'own') {
      for (const db of this.databases) await dropDatabase(this.env.MONGODB_URI, db).catch(() => undefined);
    }
  }
}
