import { startService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';
import { dropDatabase, withDatabase } from './session-harness';

/**
 * kafkajs warned at every boot that it "switched default partitioner" and that limiting retries "may invalidate EoS
 * guarantees". The producers choose their partitioner (murmur2, as partition-guard expects) and are not kafkajs'
 * idempotent producers (libs/kafka/src/producer-config.ts says why), so neither warning has a cause left.
 */
describe('a service boots without kafkajs warnings its settings make moot', () => {
  // Topics, a consumer group and a database of this file's own, not the stack's defaults.
  const prefix = unique('bootwarn').replace(/-/g, '_');
  const database = prefix.slice(0, 60);
  afterAll(() => dropDatabase(testStack().mongoUri, database).catch(() => undefined));

  it('session-service (an HTTP producer and a consumer transport): no partitioner or EoS warning', async () => {
    const service = await startService('session-service', {
      TOPIC_PREFIX: prefix,
      MONGODB_URI: withDatabase(testStack().mongoUri, database),
    });
    try {
      // Both producers are connected before the service listens: everything they warn at creation is in the output.
      const output = service.output();
      expect(output).toMatch(/EventProducer|listening on/);
      const warnings = output.split('\n').filter((line) => /\bWARN\b/.test(line));
      expect(warnings.filter((line) => /partitioner|EoS/.test(line))).toEqual([]);
      expect(output).not.toContain('KafkaJS v2.0.0 switched default partitioner');
      expect(output).not.toContain('EoS');
    } finally {
      await service.stop();
    }
  });
});
