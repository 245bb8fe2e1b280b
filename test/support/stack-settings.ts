/** The stack the integration tests talk to (exported by the global set-up). */
export function testStack(): { brokers: string[]; mongoUri: string } {
  const brokers = process.env.KAFKA_BROKERS;
  const mongoUri = process.env.MONGODB_URI;
  if (!brokers || !mongoUri)
    throw new Error('KAFKA_BROKERS / MONGODB_URI not set: run the tests through jest (global set-up)');
  return { brokers: brokers.split(','), mongoUri };
}

/** A name unique to this test run, so tests never share topics, groups, sessions or databases. */
export function unique(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The ports of a stack instance beside the run's (`ownStackPorts`); `brokers` 1 when left out. */
export interface StackPorts {
  kafka: number;
  controller: number;
  mongo: number;
  brokers?: number;
}

/**
 * Ports for a stack instance beside the run's (the outage stack, a test's own cluster): `offset` (2–99) above
 * the ports of the stack the run talks to, read from KAFKA_BROKERS / MONGODB_URI. Each worktree's stack has a block
 * of 100 ports of its own (KAFKA_PORT, its controller on KAFKA_PORT+1, MONGO_PORT), so two runs on different stacks
 * never meet, and the instances of one run use disjoint offsets: broker N of a cluster on kafka+N-1, its controller
 * on controller+N-1.
 */
export function ownStackPorts(offset: number, brokers = 1): Required<StackPorts> {
  if (!Number.isInteger(offset) || offset < 2 || offset + 2 * brokers > 100)
    throw new Error(`ownStackPorts: offset ${offset} with ${brokers} broker(s) leaves the block of 100 ports`);
  const { brokers: shared, mongoUri } = testStack();
  const kafkaBase = Number(/:(\d+)$/.exec(shared[0])?.[1]);
  const mongoBase = Number(/^mongodb:\/\/[^/]*:(\d+)/.exec(mongoUri)?.[1]);
  if (!kafkaBase || !mongoBase) throw new Error(`ownStackPorts: no port in ${shared[0]} / ${mongoUri}`);
  const kafka = kafkaBase + offset;
  return { kafka, controller: kafka + brokers, mongo: mongoBase + offset, brokers };
}

/** The environment of `deploy/local/stack` for the stack instance `instance` on `ports`. */
export function instanceEnv(instance: string, ports: StackPorts): NodeJS.ProcessEnv {
  return {
    ...process.env,
    STACK_INSTANCE: instance,
    KAFKA_PORT: String(ports.kafka),
    KAFKA_CONTROLLER_PORT: String(ports.controller),
    MONGO_PORT: String(ports.mongo),
    STACK_KAFKA_BROKERS: String(ports.brokers ?? 1),
  };
}

/**
 * Where the outage stacks sit in the block of ports (`ownStackPorts`): worker N's at 10 + 2(N-1) (a broker and its
 * controller).
 */
const OUTAGE_STACK_OFFSET = 10;
/** Outage stacks a run may have: one per Jest worker, at most this many workers. */
export const MAX_OUTAGE_STACKS = 4;

/**
 * The outage stack of this Jest worker: a single-broker stack instance on ports of its own, named after the run
 * (CTXLEDGER_OUTAGE_STACK, set by the global set-up) and the worker, which the suites that stop its broker or its
 * MongoDB-wire server share — one at a time, as a worker runs one file at a time: only `@outage` and `@exclusive`
 * files use one (integration-environment.js) — each with its own topic prefix and database. Another worker's file
 * (a shared one, or another `@outage` file on its own worker's stack) runs beside it meanwhile. The first suite on
 * a worker that needs it starts it, each hands it back running (`FaultStack` 'outage'), the global teardown kills
 * them all (`outageStacks`).
 */
export function outageStack(): { instance: string; env: NodeJS.ProcessEnv } {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  if (!Number.isInteger(worker) || worker < 1 || worker > MAX_OUTAGE_STACKS)
    throw new Error(
      `JEST_WORKER_ID ${process.env.JEST_WORKER_ID}: outage stacks for workers 1-${MAX_OUTAGE_STACKS} only`,
    );
  return outageStacks()[worker - 1]!;
}

/** Every outage stack the run may have started (one per worker: `outageStack`). */
export function outageStacks(): Array<{ instance: string; env: NodeJS.ProcessEnv }> {
  const run = process.env.CTXLEDGER_OUTAGE_STACK;
  if (!run) throw new Error('CTXLEDGER_OUTAGE_STACK not set: run the tests through jest (global set-up)');
  return Array.from({ length: MAX_OUTAGE_STACKS }, (_, i) => {
    const instance = `${run}-w${i + 1}`;
    return { instance, env: instanceEnv(instance, ownStackPorts(OUTAGE_STACK_OFFSET + 2 * i)) };
  });
}
