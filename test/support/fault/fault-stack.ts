import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { allTopics } from '@ctxledger/contracts';
import { ensureTopics } from '@ctxledger/kafka';
import { repoRoot, stackAsync, stackEnv } from '../../../tools/local-stack';
import { testStack } from '../stack-settings';

/**
 * A stack instance of a fault test's own (its own STACK_INSTANCE and ports), so stopping its broker or its
 * MongoDB-wire server disturbs no other test. Stops only the processes this instance recorded, by pid.
 *
 * `'shared'` instead of ports: the stack the whole run talks to (global set-up), for a fault that stops no part of
 * the stack (a service killed): the run's own topic prefix and database keep it apart, and it boots no broker of
 * its own. Such a stack refuses to be stopped.
 */
export class FaultStack {
  readonly env: NodeJS.ProcessEnv;
  readonly shared: boolean;
  brokers: string[] = [];
  mongoUri = '';

  /**
   * `ports.brokers` > 1: a KRaft cluster of that many brokers (replication factor 3, min.insync.replicas 2), broker N
   * on `kafka`+N-1 and its controller on `controller`+N-1.
   */
  constructor(
    readonly instance: string,
    ports: { kafka: number; controller: number; mongo: number; brokers?: number } | 'shared',
  ) {
    this.shared = ports === 'shared';
    if (ports === 'shared') {
      this.env = { ...process.env };
      return;
    }
    this.env = {
      ...process.env,
      STACK_INSTANCE: instance,
      KAFKA_PORT: String(ports.kafka),
      KAFKA_CONTROLLER_PORT: String(ports.controller),
      MONGO_PORT: String(ports.mongo),
      STACK_KAFKA_BROKERS: String(ports.brokers ?? 1),
    };
  }

  /** Async, so the test's own clients keep running (and timing) while the broker stops or starts. */
  private async run(command: string, ...args: string[]): Promise<void> {
    if (this.shared) throw new Error(`${this.instance}: the shared stack is not a test's to ${command}`);
    await stackAsync(command, this.env, args);
  }

  async up(): Promise<this> {
    if (this.shared) {
      ({ brokers: this.brokers, mongoUri: this.mongoUri } = testStack());
      return this;
    }
    await this.run('up');
    const settings = stackEnv(this.env);
    this.brokers = settings.KAFKA_BROKERS!.split(',');
    this.mongoUri = settings.MONGODB_URI!;
    return this;
  }

  /** Stops this instance and removes its state directory (the instance name is unique to the run). */
  async down(): Promise<void> {
    if (this.shared) return;
    await this.run('down');
    rmSync(this.stateDir(), { recursive: true, force: true });
  }

  private stateDir(): string {
    return resolve(this.env.STACK_STATE_DIR ?? resolve(repoRoot, '.stack'), this.instance);
  }

  kafka(clientId = 'fault-test'): Kafka {
    return new Kafka({ clientId, brokers: this.brokers, logLevel: logLevel.NOTHING });
  }

  /** Creates the topics of a prefix (6 partitions) before any service subscribes. */
  async topics(prefix: string): Promise<void> {
    // A broker that just started may answer "does not host this topic-partition" while it loads the new
    // topics' leaders: try again (creating is idempotent).
    for (let attempt = 1; ; attempt++) {
      try {
        await ensureTopics(this.kafka('fault-admin'), allTopics(prefix));
        return;
      } catch (error) {
        if (attempt >= 10) throw error;
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
    }
  }

  /** Stops every broker, or broker `node` (its node id, 1-based) of a cluster. */
  kafkaStop(node?: number): Promise<void> {
    return this.run('kafka-stop', ...(node === undefined ? [] : [String(node)]));
  }

  /** Starts them again (or broker `node`), and waits until the cluster lists every running broker. */
  kafkaStart(node?: number): Promise<void> {
    return this.run('kafka-start', ...(node === undefined ? [] : [String(node)]));
  }

  /** SIGTERM to this instance's FerretDB (the pid it recorded), and wait until it is gone. */
  async mongoStop(): Promise<void> {
    if (this.shared) throw new Error(`${this.instance}: the shared stack is not a test's to stop`);
    const stateDir = this.stateDir();
    const pid = Number(readFileSync(resolve(stateDir, 'mongo.pid'), 'utf8').trim());
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!cmdline.includes(stateDir)) throw new Error(`pid ${pid} is not this instance's FerretDB`);
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    process.kill(pid, 'SIGKILL');
  }

  /** `up` starts what is not running (here FerretDB alone) and waits until it answers. */
  mongoStart(): Promise<void> {
    return this.run('up');
  }
}

/** The database part of a mongodb:// URI replaced. */
export const withDatabase = (uri: string, db: string) =>
  uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${db}`);
