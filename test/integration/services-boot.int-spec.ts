/**
 * Each service boots against the shared stack and reports its dependencies; a bad variable stops the boot and is
 * named. (The broker stopped under a service: services-health, which runs alone.)
 */
import { SERVICES } from '../support/global-setup';
import { health, startService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';
import { dropDatabase, withDatabase } from './session-harness';

describe('services boot and report their dependencies', () => {
  // Topics, consumer groups and a database of this file's own, not the stack's defaults.
  const prefix = unique('boot').replace(/-/g, '_');
  const database = prefix.slice(0, 60);
  const own = { TOPIC_PREFIX: prefix, MONGODB_URI: withDatabase(testStack().mongoUri, database) };
  afterAll(() => dropDatabase(testStack().mongoUri, database).catch(() => undefined));

  it.each(SERVICES)('%s: GET /health is 200 with kafka and mongodb up, and /metrics answers', async (name) => {
    const service = await startService(name, own);
    try {
      const { status, body } = await health(service);
      expect(status).toBe(200);
      expect(body.status).toBe('ok');
      expect(body.info.kafka.status).toBe('up');
      expect(body.info.mongodb.status).toBe('up');

      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      expect(metrics).toContain('process_cpu_user_seconds_total');
      expect(metrics).toContain(`service="${name}"`);
    } finally {
      await service.stop();
    }
  });

  it('refuses to boot with a bad variable and names it', async () => {
    await expect(startService('session-service', { ...own, KAFKA_BROKERS: 'not-a-broker' }, 20_000)).rejects.toThrow(
      /KAFKA_BROKERS: each broker must be host:port/,
    );
  });
});
