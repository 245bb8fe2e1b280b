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
