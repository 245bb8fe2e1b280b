import { stackAsync, stackEnv } from '../../tools/local-stack';
import { SERVICES } from '../support/global-setup';
import { startService, type RunningService } from '../support/service-process';
import { ownStackPorts } from '../support/stack-settings';

async function health(service: RunningService): Promise<{ status: number; body: any }> {
  const res = await fetch(`${service.url}/health`);
  return { status: res.status, body: await res.json() };
}

describe('services boot and report their dependencies', () => {
  it.each(SERVICES)('%s: GET /health is 200 with kafka and mongodb up, and /metrics answers', async (name) => {
    const service = await startService(name);
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
    await expect(startService('session-service', { KAFKA_BROKERS: 'not-a-broker' }, 20_000)).rejects.toThrow(
      /KAFKA_BROKERS: each broker must be host:port/,
    );
  });

  describe('on a stack of its own whose broker is stopped', () => {
    // A second stack instance, so stopping its broker disturbs no other test.
    const ports = ownStackPorts(50);
    const alt = {
      ...process.env,
      STACK_INSTANCE: `health-${process.pid}`,
      KAFKA_PORT: String(ports.kafka),
      KAFKA_CONTROLLER_PORT: String(ports.controller),
      MONGO_PORT: String(ports.mongo),
    };
    // Async, so the event loop (and the HTTP client's view of its keep-alive sockets) runs while Kafka restarts.
    const stackCmd = (command: string) => stackAsync(command, alt);
    let service: RunningService;

    beforeAll(async () => {
      await stackCmd('up');
      service = await startService('compaction-service', stackEnv(alt));
    }, 180_000);

    afterAll(async () => {
      await service?.stop();
      await stackCmd('down');
    }, 60_000);

    it('reports kafka down with HTTP 503 while mongodb stays up, and up again after a restart', async () => {
      expect((await health(service)).status).toBe(200);

      await stackCmd('kafka-stop');
      const down = await health(service);
      expect(down.status).toBe(503);
      expect(down.body.error.kafka.status).toBe('down');
      expect(down.body.info.mongodb.status).toBe('up');

      await stackCmd('kafka-start');
      const deadline = Date.now() + 60_000;
      let again = await health(service);
      while (again.status !== 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        again = await health(service);
      }
      expect(again.status).toBe(200);
    }, 180_000);
  });
});
