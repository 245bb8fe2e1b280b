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

/**
 * Ports for a stack instance of a test's own (a fault test that stops its broker): `offset` (2–99) above the ports
 * of the stack the run talks to, read from KAFKA_BROKERS / MONGODB_URI. Each worktree's stack has a block of 100
 * ports of its own (KAFKA_PORT, its controller on KAFKA_PORT+1, MONGO_PORT), so two runs on different stacks never
 * meet, and the suites of one run use disjoint offsets: broker N of a cluster on kafka+N-1, its controller on
 * controller+N-1.
 */
export function ownStackPorts(
  offset: number,
  brokers = 1,
): { kafka: number; controller: number; mongo: number; brokers: number } {
  if (!Number.isInteger(offset) || offset < 2 || offset + 2 * brokers > 100)
    throw new Error(`ownStackPorts: offset ${offset} with ${brokers} broker(s) leaves the block of 100 ports`);
  const { brokers: shared, mongoUri } = testStack();
  const kafkaBase = Number(/:(\d+)$/.exec(shared[0])?.[1]);
  const mongoBase = Number(/^mongodb:\/\/[^/]*:(\d+)/.exec(mongoUri)?.[1]);
  if (!kafkaBase || !mongoBase) throw new Error(`ownStackPorts: no port in ${shared[0]} / ${mongoUri}`);
  const kafka = kafkaBase + offset;
  return { kafka, controller: kafka + brokers, mongo: mongoBase + offset, brokers };
}
