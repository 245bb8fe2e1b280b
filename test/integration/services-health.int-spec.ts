/**
 * @outage stops its outage stack's broker to see /health answer 503.
 */
import { eventually } from '../support/eventually';
import { FaultRun } from '../support/fault/fault-run';
import { health, type RunningService } from '../support/service-process';

describe('a service on the outage stack, its broker stopped', () => {
  // The worker's outage stack, which only the suites that stop a broker use, so stopping it disturbs no other test.
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
