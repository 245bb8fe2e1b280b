/**
 * `npm start`: brings up the local Kafka + MongoDB-wire stack (unless it is already up), builds and
 * starts the three services, waits until each one's /health answers 200 and prints where they listen.
 * From then on it supervises them: a service that exits is restarted with backoff (tools/supervision.ts) while the
 * others and the stack stay up. A service that cannot come up at all stops the start.
 * Ctrl-C stops the services, and the stack too when this command started it (a stack it found up is left running).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { repoRoot, SERVICE_NAMES, stack, stackEnv, stackIsUp } from './local-stack';
import { crashesInARowAfter, restartDelayMs } from './supervision';

// Ports 3000, 3001, 3002 unless SESSION_SERVICE_PORT / COMPACTION_SERVICE_PORT / SUMMARIZER_SERVICE_PORT say otherwise.
const SERVICES = SERVICE_NAMES.map((name, i) => ({
  name,
  port: Number(process.env[`${name.replace('-', '_').toUpperCase()}_PORT`] ?? 3000 + i),
}));

/** A service as `npm start` runs it: its current process, and its crashes in a row (see supervision.ts). */
interface Service {
  readonly name: string;
  readonly port: number;
  child?: ChildProcess;
  startedAt: number;
  crashesInARow: number;
  restart?: NodeJS.Timeout;
}

const services = SERVICES.map((s): Service => ({ ...s, startedAt: 0, crashesInARow: 0 }));
let startedStack = false;
let stopping = false;
/** Set once every service answered /health: from then on a crash restarts the service instead of stopping all. */
let supervising = false;
let env: NodeJS.ProcessEnv = process.env;

async function main(): Promise<void> {
  if (stackIsUp()) {
    console.log('local stack already up: using it (it will be left running)');
  } else {
    stack('up');
    startedStack = true;
  }
  env = { ...process.env, ...stackEnv() };
  // Local development: the walkthrough calls the API without a key. Say so; API_KEYS (or AUTH_MODE) in the
  // environment turns authentication on instead.
  const authConfigured = ['AUTH_MODE', 'API_KEYS', 'API_KEYS_FILE'].some((name) => process.env[name]);
  if (!authConfigured) {
    env.AUTH_MODE = 'none';
    console.log(
      'session-service: AUTH_MODE=none (no API keys; local development). Set API_KEYS=<tenant>:<key> to require keys.',
    );
  }

  // --no-build: run what dist/ holds (the tests, which built the services already).
  if (!process.argv.includes('--no-build')) {
    console.log('building the services…');
    for (const { name } of SERVICES) {
      execFileSync(resolve(repoRoot, 'node_modules/.bin/nest'), ['build', name], { stdio: 'inherit', cwd: repoRoot });
    }
  }

  for (const service of services) spawnService(service);
  await Promise.all(services.map((s) => waitHealthy(s)));
  supervising = true;
  console.log('\nContext Ledger is up:');
  for (const { name, port, child } of services) {
    console.log(
      `  ${name.padEnd(20)} http://127.0.0.1:${port}   (health: /health, metrics: /metrics; pid ${child?.pid})`,
    );
  }
  console.log(`  Kafka brokers        ${env.KAFKA_BROKERS}`);
  console.log(`  MongoDB              ${env.MONGODB_URI}`);
  console.log('\nA service that crashes is restarted (the others and the stack stay up). Press Ctrl-C to stop.');
}

function spawnService(service: Service): void {
  const child = spawn(process.execPath, [resolve(repoRoot, `dist/apps/${service.name}/main.js`)], {
    cwd: repoRoot,
    env: { ...env, PORT: String(service.port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  prefixOutput(child, service.name);
  service.child = child;
  service.startedAt = Date.now();
  child.on('exit', (code, signal) => {
    service.child = undefined;
    if (stopping) return;
    const how = signal ?? `code ${code}`;
    if (signal === 'SIGINT') {
      // Ctrl-C reached the whole process group: the service was stopped, it did not crash.
      void shutdown(0);
      return;
    }
    if (!supervising) {
      console.error(`${service.name} exited (${how}) before the stack was up; stopping everything`);
      void shutdown(1);
      return;
    }
    service.crashesInARow = crashesInARowAfter(service.crashesInARow, Date.now() - service.startedAt);
    const delay = restartDelayMs(service);
    console.error(
      `${service.name} exited (${how}); restarting it in ${delay / 1000} s (crash ${service.crashesInARow} in a row; the other services and the stack stay up)`,
    );
    service.restart = setTimeout(() => {
      service.restart = undefined;
      if (stopping) return;
      spawnService(service);
      console.log(`${service.name} restarted (pid ${service.child?.pid})`);
      const since = Date.now();
      waitHealthy(service).then(
        () => console.log(`${service.name} is healthy again after ${((Date.now() - since) / 1000).toFixed(1)} s`),
        (error: unknown) => console.error(`${service.name}: ${(error as Error).message}`),
      );
    }, delay);
  });
}

function prefixOutput(child: ChildProcess, name: string): void {
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(`[${name}] ${line}\n`);
    });
  }
}

async function waitHealthy({ name, port, child }: Service, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited before it became healthy`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5000) });
      if (res.ok) return;
      last = `HTTP ${res.status}: ${await res.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${name} not healthy after ${timeoutMs / 1000}s (${last})`);
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping the services…');
  for (const service of services) clearTimeout(service.restart);
  const running = services.flatMap(({ child }) => (child ? [child] : []));
  await Promise.all(
    running.map(
      (child) =>
        new Promise<void>((done) => {
          const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => {
            clearTimeout(kill);
            done();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  if (startedStack) {
    console.log('stopping the local stack…');
    stack('down');
  }
  process.exit(code);
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
main().catch((error: unknown) => {
  console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
  void shutdown(1);
});
