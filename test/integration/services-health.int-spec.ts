/**
 * @exclusive stops the outage stack's broker to see /health answer 503.
 */
import { eventually } from '../support/eventually';
import { FaultRun } from '../support/fault/fault-run';
import { SERVICES } from '../support/global-setup';
import { startService, type RunningService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';
import { dropDatabase, withDatabase } from './session-harness';

async function health(service: RunningService): Promise<{ status: number; body: any }> {
  const res = await fetch(`${service.url}/health`);
  return { status: res.status, body: await res.json() };
}

describe('services boot and report their dependencies', () => {
  // Topics, consumer groups and a database of this file's own, not the stack's defaults.
  const prefix = unique('health').replace(/-/g, '_');
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

  describe('on the outage stack, its broker stopped', () => {
    // The stack instance the suites that stop a broker share, so stopping it disturbs no other test.
    const run = new FaultRun('services-health', 'sh', 'outage');
    let service: RunningService;

    beforeAll(async () => {
      await run.up();
      service = await run.start('compaction-service');
    }, 180_000);

    // Stops the service and hands the stack back with its broker running, whatever the test left.
    afterAll(() => run.down(), 120_000);

    it('reports kafka down with HTTP 503 while mongodb stays up, and up again after a restart', async () => {
      expect((await health(service)).status).toBe(200);

      await run.stack.kafkaStop();
      const down = await health(service);
      expect(down.status).toBe(503);
      expect(down.body.error.kafka.status).toBe('down');
      expect(down.body.info.mongodb.status).toBe('up');

      await run.stack.kafkaStart();
      await eventually(
        () => health(service),
        (h) => h.status === 200,
        'compaction-service /health to answer 200 after the restart',
        60_000,
      );
    }, 180_000);
  });
});
