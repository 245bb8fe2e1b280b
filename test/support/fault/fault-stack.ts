import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { allTopics } from '@ctxledger/contracts';
import { ensureTopics } from '@ctxledger/kafka';
import { stackAsync, stackEnv, stackStateDir } from '../../../tools/local-stack';
import { killStackInstance } from '../stack-kill';
import { instanceEnv, outageStack, testStack, type StackPorts } from '../stack-settings';

/**
 * The stack a fault test stops parts of, by pid (only the processes its instance recorded):
 *
 * - `'outage'`: the outage stack of the worker (`outageStack`), one broker shared by the suites that stop it or its
 *   MongoDB-wire server, one suite at a time (only `@outage` and `@exclusive` files: integration-environment.js).
 *   `up` starts it if no suite has yet (or starts what is not running); `down` hands it back running: whatever the
 *   suite stopped — a test that failed midway included — is started again, and the instance refuses any later stop
 *   from this suite. The global teardown kills it (removed next).
 * - ports (`ownStackPorts`): an instance of the test's own, started by `up`, killed and removed by `down` (a
 *   cluster of several brokers: `ports.brokers`).
 * - `'shared'`: the stack the whole run talks to (global set-up), for a fault that stops no part of the stack (a
 *   service killed): the run's own topic prefix and database keep it apart. Such a stack refuses to be stopped.
 */
export class FaultStack {
  readonly instance: string;
  readonly env: NodeJS.ProcessEnv;
  readonly kind: 'outage' | 'own' | 'shared';
  brokers: string[] = [];
  mongoUri = '';
  /** `down` has handed the outage stack back: it is no longer this suite's to stop. */
  private handedBack = false;

  /**
   * `ports.brokers` > 1: a KRaft cluster of that many brokers (replication factor 3, min.insync.replicas 2), broker N
   * on `kafka`+N-1 and its controller on `controller`+N-1.
   */
  constructor(instance: string, ports: StackPorts | 'outage' | 'shared') {
    if (ports === 'shared') {
      this.kind = 'shared';
      this.instance = instance;
      this.env = { ...process.env };
    } else if (ports === 'outage') {
      // Another integration file may run beside a shared one (integration-environment.js): stopping an outage
      // stack's broker or MongoDB-wire server is an `@outage` or `@exclusive` file's only.
      if (process.env.CTXLEDGER_TEST_OUTAGE !== '1')
        throw new Error(
          `${instance}: an outage stack is for @outage and @exclusive test files only (integration-environment.js)`,
        );
      this.kind = 'outage';
      ({ instance: this.instance, env: this.env } = outageStack());
    } else {
      this.kind = 'own';
      this.instance = instance;
      this.env = instanceEnv(instance, ports);
    }
  }

  /** Async, so the test's own clients keep running (and timing) while the broker stops or starts. */
  private async run(command: string, ...args: string[]): Promise<void> {
    this.mayChange(command);
    await stackAsync(command, this.env, args);
  }

  private mayChange(command: string): void {
    if (this.kind === 'shared') throw new Error(`${this.instance}: the shared stack is not a test's to ${command}`);
    if (this.handedBack)
      throw new Error(`${this.instance}: handed back to the run, no longer this suite's to ${command}`);
  }

  async up(): Promise<this> {
    if (this.kind === 'shared') {
      ({ brokers: this.brokers, mongoUri: this.mongoUri } = testStack());
      return this;
    }
    await this.run('up');
    const settings = stackEnv(this.env);
    this.brokers = settings.KAFKA_BROKERS!.split(',');
    this.mongoUri = settings.MONGODB_URI!;
    return this;
  }

  /**
   * An own instance: killed (SIGKILL), its state directory removed (the instance name is unique to the run). The
   * outage stack: handed back running (`up` starts what is not running and waits until it answers). The shared
   * stack: nothing.
   */
  async down(): Promise<void> {
    if (this.kind === 'shared') return;
    if (this.kind === 'outage') {
      this.handedBack = true;
      await stackAsync('up', this.env);
      return;
    }
    // Removed next: nothing of it needs a clean stop (a graceful stop of a cluster's brokers took 8 s).
    await killStackInstance(this.env);
    await this.run('down');
    rmSync(stackStateDir(this.env), { recursive: true, force: true });
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
    this.mayChange('stop FerretDB');
    const stateDir = stackStateDir(this.env);
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
