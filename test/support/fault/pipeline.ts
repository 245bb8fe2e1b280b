import { mkdirSync, writeFileSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import type { Admin, Consumer, Kafka } from 'kafkajs';
import { Registry } from 'prom-client';
import type { CompactionBlock } from '@ctxledger/context-engine';
import type { AnyEvent } from '@ctxledger/contracts';
import { CompactionMetrics } from '../../../apps/compaction-service/src/compaction/compaction.metrics';
import { CompactionService } from '../../../apps/compaction-service/src/compaction/compaction.service';
import type { EventPublisher, Outgoing } from '../../../apps/compaction-service/src/compaction/event-publisher';
import type { SummaryTimeouts } from '../../../apps/compaction-service/src/compaction/summary-timeouts';
import { startService, type RunningService } from '../service-process';

/**
 * The fault-free reference of the compaction service: the same application service in memory, fed the session
 * stream as it ended up in the log (summary results and timeouts included), emitting into an array.
 */
export async function referenceBlocks(events: readonly AnyEvent[]): Promise<CompactionBlock[]> {
  const published: Outgoing[] = [];
  const publisher = { publish: async (out: readonly Outgoing[]) => void published.push(...out) };
  const timeouts = { start: () => undefined, clear: () => undefined, clearSession: () => undefined };
  const service = new CompactionService(
    publisher as unknown as EventPublisher,
    timeouts as unknown as SummaryTimeouts,
    new CompactionMetrics(new Registry()),
  );
  Logger.overrideLogger(false); // its refusals are logged as warnings: expected, and noise in a test's output
  try {
    for (const event of events) await service.handle(event, { partition: 0, replay: false });
  } finally {
    Logger.overrideLogger(['log', 'error', 'warn']);
  }
  return published.flatMap((o) => (o.kind === 'block.created' ? [o.block] : []));
}

/** For each group, its committed offsets against the topics' high watermarks: true when none lags. */
export async function groupsCaughtUp(admin: Admin, groups: ReadonlyArray<[groupId: string, topic: string]>) {
  let records = 0;
  for (const [groupId, topic] of groups) {
    const highs = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    for (const h of highs) {
      records += Number(h.high);
      const at = committed?.partitions.find((p) => p.partition === h.partition)?.offset ?? '-1';
      if (BigInt(h.high) > BigInt(h.low) && BigInt(at) < BigInt(h.high)) return { done: false, records };
    }
  }
  return { done: true, records };
}

/**
 * Waits until every group has committed everything and the topics stopped growing for `quietMs` (a summary
 * in flight or a timeout still to fire would add records).
 */
export async function quiescent(
  kafka: Kafka,
  groups: ReadonlyArray<[groupId: string, topic: string]>,
  what: string,
  { quietMs = 4000, timeoutMs = 180_000 } = {},
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    let stableSince = 0;
    let lastRecords = -1;
    for (;;) {
      const state = await groupsCaughtUp(admin, groups).catch(() => ({ done: false, records: -1 }));
      if (state.done && state.records === lastRecords) {
        if (stableSince === 0) stableSince = Date.now();
        if (Date.now() - stableSince >= quietMs) return;
      } else {
        stableSince = 0;
      }
      lastRecords = state.records;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await admin.disconnect();
  }
}

/** A service that can be SIGKILLed and restarted any number of times; remembers the outputs of its lives. */
export class RestartableService {
  current?: RunningService;
  private readonly lives: string[] = [];
  private starting?: Promise<RunningService>;
  kills = 0;

  constructor(
    readonly name: string,
    private readonly env: Record<string, string>,
  ) {}

  async start(): Promise<RunningService> {
    this.starting = startService(this.name, this.env, 90_000);
    try {
      this.current = await this.starting;
      return this.current;
    } finally {
      this.starting = undefined;
    }
  }

  /** SIGKILL (no shutdown hook runs), then a new process on the same settings. */
  async killAndRestart(): Promise<void> {
    if (this.starting) await this.starting;
    const victim = this.current!;
    await victim.kill();
    this.kills++;
    this.lives.push(victim.output());
    this.current = undefined;
    await this.start();
  }

  alive(): boolean {
    const p = this.current?.process;
    return p !== undefined && p.exitCode === null && p.signalCode === null;
  }

  output(): string {
    return [...this.lives, this.current?.output() ?? ''].join('\n--- restarted after SIGKILL ---\n');
  }

  async stop(): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    await this.current?.stop();
  }
}

/** With FAULT_DUMP_DIR set, writes each service's output there (to read after a failure). */
export function dumpOutputs(test: string, outputs: Record<string, string>): void {
  const dir = process.env.FAULT_DUMP_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  for (const [name, output] of Object.entries(outputs)) writeFileSync(`${dir}/${test}-${name}.log`, output);
}

/** Like TopicCollector, but for topics with poison on them: records that are not JSON objects are skipped. */
export class TolerantCollector {
  readonly events: AnyEvent[] = [];
  private consumer?: Consumer;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
  ) {}

  async start(): Promise<this> {
    this.consumer = this.kafka.consumer({ groupId: `tolerant-${process.pid}-${Date.now()}-${Math.random()}` });
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.topic, fromBeginning: true });
    await this.consumer.run({
      eachMessage: async ({ message }) => {
        try {
          const value = JSON.parse(message.value?.toString() ?? 'null') as unknown;
          if (value && typeof value === 'object' && 'type' in value) this.events.push(value as AnyEvent);
        } catch {
          // poison: not ours to judge here
        }
      },
    });
    return this;
  }

  async until(condition: (events: AnyEvent[]) => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition(this.events)) {
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} on ${this.topic}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}
