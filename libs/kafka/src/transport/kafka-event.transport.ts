import { Logger } from '@nestjs/common';
import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import { type Consumer, type EachBatchPayload, type Kafka, type KafkaMessage, type Producer } from 'kafkajs';
import { lastValueFrom } from 'rxjs';
import { decodeEvent, ID_PATTERN, type AnyEvent, type StreamName, type TopicNames } from '@ctxledger/contracts';
import {
  CORRELATION_HEADER,
  correlationIdOfRecord,
  runWithCorrelation,
  type Correlation,
} from '@ctxledger/observability';
import { batchPattern, errorMessage, isPoison, KafkaEventContext, type KafkaEventBatch } from './kafka-event.context';
import { DeadLetterPublisher } from './dead-letter';
import { GroupLagProbe } from './group-lag';
import { ReplayTracker, topicPartition } from './replay-tracker';
import { backoffDelay, sleep, type Backoff } from '../backoff';
import { producerConfig } from '../producer-config';
import { forwardedValue, keyPartition } from './partition-guard';
import {
  unwatchConsumer,
  watchConsumer,
  type ConsumerState,
  type ConsumerStatus,
  type WatchedConsumer,
} from './consumer-status';

export type ConsumeOutcome = 'processed' | 'dead-lettered' | 'retried' | 'forwarded' | 'misplaced';

/**
 * What a batch handler may return: the records it applied everything else of but could never process
 * (they go to the dead-letter topic with the reason). A batch handler must not throw PoisonEventError.
 */
/**
 * The consumers' session timeout unless a transport sets its own: how long the coordinator keeps a silent member,
 * and so about how long a running consumer may be out of its group while it finds a new coordinator and rejoins.
 */
export const DEFAULT_SESSION_TIMEOUT_MS = 10_000;
/**
 * How long the broker may hold a fetch that finds nothing new. kafkajs's `disconnect()` waits for the fetch in flight:
 * with its default (5 s) a service asked to stop (SIGTERM) took 4.7 s to exit when idle. A fetch returns as soon as a
 * record arrives whatever this is; an idle consumer asks again twice a second instead of once in 5 s.
 */
const FETCH_MAX_WAIT_MS = 500;

export interface BatchHandlerResult {
  readonly poison?: ReadonlyArray<{ readonly offset: string; readonly reason: string }>;
}

export interface KafkaEventTransportOptions {
  readonly kafka: Kafka;
  readonly topics: TopicNames;
  readonly streams: readonly StreamName[];
  readonly groupId: string;
  /** Names this consumer in dead-letter events. */
  readonly consumerName: string;
  readonly fromBeginning?: boolean;
  readonly partitionsConsumedConcurrently?: number;
  /**
   * A member that stops heart-beating (killed) leaves the group after this long (kafkajs default: 30 s; ours:
   * `DEFAULT_SESSION_TIMEOUT_MS`).
   */
  readonly sessionTimeoutMs?: number;
  /** Backoff of transient handler failures: doubles from `initial` up to `max`, with jitter. */
  readonly retryBackoffMs?: Backoff;
  /** Backoff of the consumer's restarts after a crash: doubles from `initial` up to `max`, with jitter. */
  readonly restartBackoffMs?: Backoff;
  /** Called with each record's outcome (metrics). */
  readonly onOutcome?: (topic: string, outcome: ConsumeOutcome) => void;
  /** Called once at start with the group and a probe of its lag by topic (metrics measure it at scrape time). */
  readonly onLagProbe?: (groupId: string, probe: () => Promise<Record<string, number>>) => void;
  /**
   * Called after partitions are assigned (a consumer restarted or the group rebalanced), with the partition
   * count of each of the transport's topics (read at start). After a crash, before the new consumer joins, it is
   * called with an empty assignment: other members may have consumed the partitions meanwhile, so state kept for
   * them is stale (the replayed streams rebuild it when they come back).
   */
  readonly onAssigned?: (assignment: Record<string, number[]>, partitionCounts: ReadonlyMap<string, number>) => void;
  /**
   * Called when this member may be losing its partitions: a rebalance began, the consumer stopped or crashed.
   * Until the next `onAssigned`, another member may be consuming them.
   */
  readonly onRevoked?: () => void;
  /**
   * Called when the group confirms this member (it joined, or a heartbeat was answered) with the time until which
   * it cannot have been expelled: the coordinator drops a member only after a session timeout without heartbeats.
   * A member whose event loop stalled past it learns so only at its next heartbeat, and meanwhile must not assume
   * it still owns its partitions.
   */
  readonly onMembership?: (holdsUntil: number) => void;
  /**
   * Streams whose newly assigned partitions are read again from their first offset, so a consumer that keeps
   * state in memory rebuilds it from the log after a restart or rebalance. Records below the committed offset
   * reach handlers with `context.isReplay()` true (fold, do not emit).
   */
  readonly replayOnAssignment?: readonly StreamName[];
  /**
   * Streams whose records must sit on their key's murmur2 partition (see partition-guard.ts). A misplaced
   * record is skipped by every consumer; the one consumer group with `forward: true` copies it to its
   * proper partition first. Exactly one group of a deployment forwards.
   */
  readonly partitionGuard?: { readonly streams: readonly StreamName[]; readonly forward: boolean };
}

/**
 * A Nest microservice transport on kafkajs that fixes what the stock Kafka transport lacks:
 * - a record that breaks its contract (not JSON, wrong schema, unknown type, over the size limit) or that a
 *   handler marks as poison goes to the dead-letter topic with the reason, and the partition moves on;
 * - any other handler failure is transient (the database is down, say): the record is retried with backoff,
 *   never skipped, and the partition waits — lag grows and alerts fire, but nothing is lost;
 * - offsets are committed only after the handler's effect is done (at-least-once; handlers are idempotent);
 * - batch handlers (`batchPattern(stream)`) receive a partition's valid events at once, for bulk writes;
 * - close() lets in-flight batches finish and commits them before it returns;
 * - a consumer that crashes is replaced, with backoff, for as long as it takes: kafkajs restarts a crashed
 *   consumer only after a retriable error, and not at all after e.g. "The coordinator is not aware of this
 *   member" (a commit after the group expelled the member: an event loop stalled past the session timeout, or a
 *   broker restart), which left the service running with no consumer;
 * - its state (running, restarting, stalled partitions) is registered for the service's health check
 *   (consumer-status.ts).
 * Handlers are registered with `@EventPattern('<event type>')` or `@EventPattern(batchPattern('<stream>'))`.
 */
export class KafkaEventTransport extends Server implements CustomTransportStrategy, WatchedConsumer {
  protected override readonly logger = new Logger(KafkaEventTransport.name);
  private consumer?: Consumer;
  private consumerState: ConsumerState = 'starting';
  private stateSince = Date.now();
  private restarts = 0;
  private lastError?: string;
  /** The restart in progress after a crash, if any. */
  private restarting?: Promise<void>;
  /** `topic:partition` → when something was last committed on it (or when it was assigned). */
  private readonly progressAt = new Map<string, number>();
  private producer?: Producer;
  private readonly streamOfTopic: Map<string, StreamName>;
  private closing = false;
  private readonly replay: ReplayTracker;
  private readonly deadLetters: DeadLetterPublisher;
  private readonly lagProbe: GroupLagProbe;
  /** Settles when the seeks of the latest assignment are done; batches wait for it. */
  private assignmentReady: Promise<void> = Promise.resolve();
  /** Partition counts of the topics, read at start. */
  private readonly partitionCounts = new Map<string, number>();
  private heartbeatIntervalMs = 1000;
  private sessionTimeoutMs = DEFAULT_SESSION_TIMEOUT_MS;
  /** When the group last confirmed this member (a heartbeat answered, a join): it holds the member a session timeout. */
  private confirmedAt = Date.now();
  /** Handlers by event pattern, looked up once (Nest's lookup JSON-parses the pattern and throws for a plain one). */
  private readonly handlerOfPattern = new Map<string, MessageHandler | null>();

  constructor(private readonly options: KafkaEventTransportOptions) {
    super();
    this.streamOfTopic = new Map(options.streams.map((s) => [options.topics[s], s]));
    const { kafka, groupId, topics } = options;
    this.replay = new ReplayTracker(kafka, groupId, new Set((options.replayOnAssignment ?? []).map((s) => topics[s])));
    this.deadLetters = new DeadLetterPublisher(
      () => this.producer!,
      topics.deadLetter,
      options.consumerName,
      this.logger,
    );
    this.lagProbe = new GroupLagProbe(
      kafka,
      groupId,
      options.streams.map((s) => topics[s]),
    );
  }

  listen(callback: (error?: unknown) => void): void {
    this.start().then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  get groupId(): string {
    return this.options.groupId;
  }

  async close(): Promise<void> {
    this.closing = true;
    unwatchConsumer(this.options.kafka, this);
    await this.restarting;
    this.setState('stopped');
    // kafkajs waits for the running batches to finish (and their commits) before it disconnects.
    await this.consumer?.disconnect();
    await this.producer?.disconnect();
    await this.lagProbe.close();
  }

  /** The group's lag by topic (GroupLagProbe): records not committed, summed over partitions. */
  lag(): Promise<Record<string, number>> {
    return this.lagProbe.byTopic();
  }

  /** The consumer's state as the transport knows it (no request to the broker). */
  consumerStatus(): ConsumerStatus {
    return {
      groupId: this.options.groupId,
      state: this.consumerState,
      since: new Date(this.stateSince).toISOString(),
      restarts: this.restarts,
      ...(this.lastError !== undefined && this.consumerState !== 'running' && { lastError: this.lastError }),
    };
  }

  /**
   * The state plus the assigned partitions that are behind and on which nothing was committed for `stallMs`:
   * a consumer kafkajs calls running can still be stuck (a handler retrying for ever, a fetch loop that died).
   */
  async checkConsumer(stallMs: number): Promise<ConsumerStatus> {
    const status = this.consumerStatus();
    if (this.consumerState !== 'running') return status;
    const now = Date.now();
    // Running for kafkajs, but the group has not heard from it for a session timeout: the coordinator holds it no
    // longer (it is finding a moved coordinator and rejoining, or its loop is stuck), so it consumes nothing.
    if (now - this.confirmedAt > this.sessionTimeoutMs)
      return { ...status, unconfirmedSince: new Date(this.confirmedAt).toISOString() };
    const quiet = [...this.replay.assigned].filter((tp) => now - (this.progressAt.get(tp) ?? now) > stallMs);
    if (quiet.length === 0) return status;
    const lag = await this.lagProbe.byPartition();
    const stalled = quiet.filter((tp) => {
      const at = tp.lastIndexOf(':');
      return (lag.get(tp.slice(0, at))?.get(Number(tp.slice(at + 1))) ?? 0n) > 0n;
    });
    return stalled.length === 0
      ? status
      : {
          ...status,
          stalled: stalled.map((tp) => `${tp.slice(0, tp.lastIndexOf(':'))}[${tp.slice(tp.lastIndexOf(':') + 1)}]`),
        };
  }

  override addHandler(...args: Parameters<Server['addHandler']>): void {
    super.addHandler(...args);
    this.handlerOfPattern.clear();
  }

  override getHandlerByPattern(pattern: string): MessageHandler | null {
    let handler = this.handlerOfPattern.get(pattern);
    if (handler === undefined) {
      handler = super.getHandlerByPattern(pattern);
      this.handlerOfPattern.set(pattern, handler);
    }
    return handler;
  }

  on(): never {
    throw new Error('KafkaEventTransport has no events to listen to');
  }

  unwrap<T>(): T {
    return { consumer: this.consumer, producer: this.producer } as T;
  }

  private async start(): Promise<void> {
    const { kafka, groupId } = this.options;
    // Dead letters and forwarded records: keyed like every event, so on the key's murmur2 partition (partition-guard).
    this.producer = kafka.producer(producerConfig());
    await this.producer.connect();
    this.options.onLagProbe?.(groupId, () => this.lag());
    await this.loadPartitionCounts();
    await this.startConsumer();
    watchConsumer(kafka, this);
  }

  /** A new kafkajs consumer, subscribed and running; the transport's current one from then on. */
  private async startConsumer(): Promise<void> {
    const { kafka, groupId, streams, topics } = this.options;
    const sessionTimeout = this.options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    this.sessionTimeoutMs = sessionTimeout;
    this.heartbeatIntervalMs = Math.max(500, Math.floor(sessionTimeout / 10));
    const consumer = kafka.consumer({
      groupId,
      allowAutoTopicCreation: false,
      sessionTimeout,
      heartbeatInterval: this.heartbeatIntervalMs,
      maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
      // kafkajs restarts a crashed consumer by itself only after some errors, and a restart that fails to connect
      // is lost in an unhandled rejection: every restart is the transport's (restartAfterCrash).
      retry: { retries: 5, restartOnFailure: async () => false },
    });
    this.consumer = consumer;
    // A margin of two heartbeats under the session timeout: the answer's time is later than the coordinator's.
    const confirmed = () => {
      this.confirmedAt = Date.now();
      this.options.onMembership?.(this.confirmedAt + sessionTimeout - 2 * this.heartbeatIntervalMs);
    };
    consumer.on(consumer.events.HEARTBEAT, confirmed);
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      this.logger.log(`joined group ${payload.groupId}: ${JSON.stringify(payload.memberAssignment)}`);
      const now = Date.now();
      for (const [t, ps] of Object.entries(payload.memberAssignment)) {
        for (const p of ps)
          if (!this.replay.assigned.has(topicPartition(t, p))) this.progressAt.set(topicPartition(t, p), now);
      }
      this.options.onAssigned?.(payload.memberAssignment, this.partitionCounts);
      confirmed();
      this.assignmentReady = this.prepareReplayWithRetry(payload.memberAssignment);
      // Awaited by every batch (which then fails and is retried by kafkajs); never an unhandled rejection.
      this.assignmentReady.catch(() => undefined);
    });
    const revoked = () => this.options.onRevoked?.();
    for (const event of [consumer.events.REBALANCING, consumer.events.STOP, consumer.events.CRASH]) {
      consumer.on(event, revoked);
    }
    let crashed = false;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      crashed = true;
      if (consumer !== this.consumer || this.closing) return;
      this.setState('restarting', errorMessage(payload.error));
      this.logger.error(`consumer of ${groupId} crashed (${errorMessage(payload.error)}); restarting it`);
      this.scheduleRestart();
    });
    await consumer.connect();
    await consumer.subscribe({
      topics: streams.map((s) => topics[s]),
      fromBeginning: this.options.fromBeginning ?? true,
    });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 3,
      eachBatch: (payload) => this.handleBatch(payload),
    });
    // A crash while run() was starting already scheduled the next consumer.
    if (consumer === this.consumer && !crashed) this.setState('running');
  }

  private scheduleRestart(): void {
    if (this.restarting || this.closing) return;
    this.restarting = this.restartAfterCrash().finally(() => {
      this.restarting = undefined;
      // A consumer that crashed again while the last attempt was finishing.
      if (this.consumerState === 'restarting') this.scheduleRestart();
    });
  }

  /**
   * Replaces the crashed consumer until a new one runs (or the transport closes), with capped exponential backoff.
   * The new one starts from the committed offsets; the partitions it gets are fresh (replayed where configured).
   */
  private async restartAfterCrash(): Promise<void> {
    const backoff = this.options.restartBackoffMs ?? { initial: 500, max: 5000 };
    for (let attempt = 1; !this.closing; attempt++) {
      await sleep(backoffDelay(attempt, backoff));
      if (this.closing) return;
      await this.consumer?.disconnect().catch(() => undefined);
      this.replay.reset();
      this.progressAt.clear();
      this.options.onAssigned?.({}, this.partitionCounts);
      try {
        await this.startConsumer();
        if (this.closing) return;
        if (this.consumerState !== 'running') continue; // it crashed while starting
        this.restarts++;
        this.logger.log(`consumer of ${this.options.groupId} restarted (attempt ${attempt})`);
        return;
      } catch (error) {
        this.lastError = errorMessage(error);
        this.logger.warn(`restarting the consumer of ${this.options.groupId} failed: ${this.lastError}; trying again`);
      }
    }
  }

  private setState(state: ConsumerState, error?: string): void {
    if (error !== undefined) this.lastError = error;
    if (state === this.consumerState) return;
    this.consumerState = state;
    this.stateSince = Date.now();
    // A consumer that has just started has just joined (kafkajs' run() returns once it has).
    if (state === 'running') this.confirmedAt = this.stateSince;
  }

  /** A fresh broker's group coordinator may still be loading: try again with backoff before giving up. */
  private async prepareReplayWithRetry(assignment: Record<string, number[]>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.replay.prepare(
          assignment,
          (topic, partition, offset) => this.consumer!.seek({ topic, partition, offset }),
          (line) => this.logger.log(line),
        );
      } catch (error) {
        if (this.closing || attempt >= 10) {
          this.logger.error(`could not prepare the replay of the assigned partitions: ${errorMessage(error)}`);
          throw error;
        }
        this.logger.warn(`preparing the replay failed (${errorMessage(error)}); attempt ${attempt + 1} follows`);
        await sleep(backoffDelay(attempt + 1, { initial: 200, max: 5000 }));
      }
    }
  }

  private async loadPartitionCounts(): Promise<void> {
    const admin = this.options.kafka.admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [...this.streamOfTopic.keys()] });
      for (const t of topics) this.partitionCounts.set(t.name, t.partitions.length);
    } finally {
      await admin.disconnect();
    }
  }

  /**
   * True when the record is not on its key's partition: it is skipped here, and forwarded to the right one
   * first when this consumer is the forwarder (not during a replay: it was forwarded the first time).
   */
  private async misplaced(topic: string, partition: number, message: KafkaMessage): Promise<boolean> {
    const stream = this.streamOfTopic.get(topic);
    if (!stream || !this.options.partitionGuard?.streams.includes(stream)) return false;
    const count = this.partitionCounts.get(topic);
    const key = message.key?.toString();
    if (count === undefined || key === undefined || key.length === 0) return false;
    const proper = keyPartition(topic, key, count);
    if (proper === partition) return false;
    if (this.options.partitionGuard?.forward && !this.replay.isReplay(topic, partition, message.offset)) {
      await this.producer!.send({
        topic,
        messages: [
          {
            key: message.key,
            value: forwardedValue(message.value, { topic, partition, offset: message.offset }),
            partition: proper,
            headers: {
              'ctxledger-forwarded-from': `${topic}/${partition}/${message.offset}`,
              [CORRELATION_HEADER]: this.correlationOf(topic, partition, message).correlationId,
            },
          },
        ],
      });
      this.options.onOutcome?.(topic, 'forwarded');
    } else {
      this.options.onOutcome?.(topic, 'misplaced');
    }
    return true;
  }

  private async handleBatch(payload: EachBatchPayload): Promise<void> {
    await this.assignmentReady;
    if (payload.isStale()) return; // fetched before a seek: kafkajs fetches again from the new offset
    const { batch } = payload;
    const stream = this.streamOfTopic.get(batch.topic);
    if (!stream) throw new Error(`no stream for topic ${batch.topic}`);
    const batchHandler = this.getHandlerByPattern(batchPattern(stream));

    if (batchHandler) {
      await this.handleAsBatch(payload, stream, batchHandler);
    } else {
      let lastDone: string | undefined;
      try {
        for (const message of batch.messages) {
          if (!payload.isRunning() || payload.isStale()) break;
          const skip = await this.misplaced(batch.topic, batch.partition, message);
          if (!skip && !(await this.handleOne(payload, stream, message))) break;
          payload.resolveOffset(message.offset);
          lastDone = message.offset;
          await payload.heartbeat().catch(() => undefined); // a failed heartbeat must not cost the commit
        }
      } finally {
        // One commit per batch, after the effects (also when a later record failed or we are stopping); a crash
        // before it redelivers records whose handlers are idempotent.
        if (lastDone !== undefined) await this.commit(batch.topic, batch.partition, lastDone);
      }
    }
  }

  /** Decodes the whole batch, dead-letters what is invalid, hands the valid events to the batch handler. */
  private async handleAsBatch(payload: EachBatchPayload, stream: StreamName, handler: MessageHandler): Promise<void> {
    const { batch } = payload;
    const events: AnyEvent[] = [];
    const offsets: string[] = [];
    const correlationIds: string[] = [];
    const replays: boolean[] = [];
    const replayed = new Set<string>();
    for (const message of batch.messages) {
      if (await this.misplaced(batch.topic, batch.partition, message)) continue;
      const replay = this.replay.isReplay(batch.topic, batch.partition, message.offset);
      if (replay) replayed.add(message.offset);
      const decoded = decodeEvent(message.value, this.coordinates(batch.topic, batch.partition, message), stream);
      if (decoded.ok) {
        events.push(decoded.event);
        offsets.push(message.offset);
        correlationIds.push(this.correlationOf(batch.topic, batch.partition, message, decoded.event).correlationId);
        replays.push(replay);
      } else if (!replay) {
        // A replayed record that is invalid was dead-lettered the first time round.
        await this.deadLetter(batch.topic, batch.partition, message, decoded.reason);
      }
    }
    if (events.length > 0) {
      const data: KafkaEventBatch = {
        topic: batch.topic,
        partition: batch.partition,
        events,
        offsets,
        correlationIds,
        ...(replayed.size > 0 && { replays }),
      };
      const context = new KafkaEventContext([batch.topic, batch.partition, offsets[offsets.length - 1]]);
      // A batch of one request's events runs with its correlation; a mixed batch with none (see correlationIds).
      const invoke = () => this.invokeWithRetry(handler, data, context, payload);
      const done = await (new Set(correlationIds).size === 1
        ? runWithCorrelation(this.sameCorrelation(correlationIds[0]!, events), invoke)
        : invoke());
      if (!done.ok) return; // shutting down or partition revoked: nothing committed, redelivered later
      const poison = new Map(
        ((done.value as BatchHandlerResult | undefined)?.poison ?? []).map((p) => [p.offset, p.reason]),
      );
      for (const message of batch.messages) {
        const reason = poison.get(message.offset);
        if (reason !== undefined && !replayed.has(message.offset))
          await this.deadLetter(batch.topic, batch.partition, message, reason);
      }
      for (let i = 0; i < events.length - poison.size; i++) this.options.onOutcome?.(batch.topic, 'processed');
    }
    const last = batch.messages[batch.messages.length - 1];
    if (last) {
      payload.resolveOffset(last.offset);
      await this.commit(batch.topic, batch.partition, last.offset);
    }
  }

  /** Returns false when the record was not handled (shutdown or rebalance): it must not be committed. */
  private async handleOne(payload: EachBatchPayload, stream: StreamName, message: KafkaMessage): Promise<boolean> {
    const { topic, partition } = payload.batch;
    const replay = this.replay.isReplay(topic, partition, message.offset);
    const decoded = decodeEvent(message.value, this.coordinates(topic, partition, message), stream);
    if (!decoded.ok) {
      // A replayed record that is invalid was dead-lettered the first time round.
      if (!replay) await this.deadLetter(topic, partition, message, decoded.reason);
      return true;
    }
    const handler = this.getHandlerByPattern(decoded.event.type);
    if (!handler) {
      // A valid event this consumer does not care about (another consumer of the topic handles it).
      this.options.onOutcome?.(topic, 'processed');
      return true;
    }
    const context = new KafkaEventContext([topic, partition, message.offset, replay]);
    // Everything the handler logs or produces carries the record's correlation id.
    const correlation = this.correlationOf(topic, partition, message, decoded.event);
    try {
      const { ok } = await runWithCorrelation(correlation, () =>
        this.invokeWithRetry(handler, decoded.event, context, payload),
      );
      if (ok) this.options.onOutcome?.(topic, 'processed');
      return ok;
    } catch (error) {
      if (!replay)
        await this.deadLetter(topic, partition, message, `handler refused the event: ${errorMessage(error)}`);
      return true;
    }
  }

  /**
   * Runs the handler until it succeeds. A PoisonEventError is rethrown (the caller dead-letters); any other
   * failure is retried with capped exponential backoff while the consumer runs. Returns ok false when it
   * gave up because of shutdown or a rebalance (the record is then redelivered).
   */
  private async invokeWithRetry(
    handler: MessageHandler,
    data: unknown,
    context: KafkaEventContext,
    payload: EachBatchPayload,
  ): Promise<{ ok: boolean; value?: unknown }> {
    const backoff = this.options.retryBackoffMs ?? { initial: 200, max: 5000 };
    // A handler may take longer than the session timeout (an LLM call): keep the membership alive meanwhile,
    // or the group would evict this consumer and hand the record to another one while it is still running.
    const beat = setInterval(() => void payload.heartbeat().catch(() => undefined), this.heartbeatIntervalMs);
    try {
      return await this.attempt(handler, data, context, payload, backoff);
    } finally {
      clearInterval(beat);
    }
  }

  private async attempt(
    handler: MessageHandler,
    data: unknown,
    context: KafkaEventContext,
    payload: EachBatchPayload,
    backoff: Backoff,
  ): Promise<{ ok: boolean; value?: unknown }> {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await handler(data, context);
        const value = await lastValueFrom(this.transformToObservable(result), { defaultValue: undefined });
        return { ok: true, value };
      } catch (error) {
        if (isPoison(error)) throw error;
        if (this.closing || !payload.isRunning() || payload.isStale()) return { ok: false };
        const delay = backoffDelay(attempt, backoff);
        this.logger.warn(
          `${context.getTopic()}[${context.getPartition()}]@${context.getOffset()}: attempt ${attempt} failed (${errorMessage(error)}); retrying in ${Math.round(delay)} ms`,
        );
        this.options.onOutcome?.(context.getTopic(), 'retried');
        await sleep(delay);
        await payload.heartbeat().catch(() => undefined);
      }
    }
  }

  private async deadLetter(topic: string, partition: number, message: KafkaMessage, reason: string): Promise<void> {
    await this.deadLetters.publish(topic, partition, message, reason, this.correlationOf(topic, partition, message));
    this.options.onOutcome?.(topic, 'dead-lettered');
  }

  /** A record's correlation: its header, else derived from its event or coordinates (observability/correlation). */
  private correlationOf(topic: string, partition: number, message: KafkaMessage, event?: AnyEvent): Correlation {
    const key = event?.sessionId ?? message.key?.toString();
    return {
      correlationId: correlationIdOfRecord({
        topic,
        partition,
        offset: message.offset,
        headers: message.headers,
        event,
      }),
      ...(key && ID_PATTERN.test(key) && key.length <= 200 && { sessionId: key }),
    };
  }

  private sameCorrelation(correlationId: string, events: readonly AnyEvent[]): Correlation {
    const sessionId = events[0]?.sessionId;
    return { correlationId, ...(sessionId && events.every((e) => e.sessionId === sessionId) && { sessionId }) };
  }

  private async commit(topic: string, partition: number, offset: string): Promise<void> {
    await this.consumer!.commitOffsets([{ topic, partition, offset: (BigInt(offset) + 1n).toString() }]);
    this.progressAt.set(`${topic}:${partition}`, Date.now());
  }

  private coordinates(topic: string, partition: number, message: KafkaMessage) {
    return {
      topic,
      partition,
      offset: message.offset,
      timestamp: message.timestamp,
      key: message.key?.toString() ?? null,
    };
  }
}
