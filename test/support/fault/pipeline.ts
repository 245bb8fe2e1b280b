import { mkdirSync, writeFileSync } from 'node:fs';
import type { Admin, Kafka } from 'kafkajs';
import { startService, type RunningService } from '../service-process';

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
