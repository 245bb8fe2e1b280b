/**
 * `npm start`: brings up the local Kafka + MongoDB-wire stack (unless it is already up), builds and
 * starts the three services, waits until each one's /health answers 200 and prints where they listen.
 * Ctrl-C stops the services, and the stack too when this command started it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { repoRoot, SERVICE_NAMES, stack, stackEnv, stackIsUp } from './local-stack';

// Ports 3000, 3001, 3002 unless SESSION_SERVICE_PORT / COMPACTION_SERVICE_PORT / SUMMARIZER_SERVICE_PORT say otherwise.
const SERVICES = SERVICE_NAMES.map((name, i) => ({
  name,
  port: Number(process.env[`${name.replace('-', '_').toUpperCase()}_PORT`] ?? 3000 + i),
}));

const children = new Map<string, ChildProcess>();
let startedStack = false;
let stopping = false;

async function main(): Promise<void> {
  if (stackIsUp()) {
    console.log('local stack already up: using it (it will be left running)');
  } else {
    stack('up');
    startedStack = true;
  }
  const env = { ...process.env, ...stackEnv() };
  // Local development: the walkthrough calls the API without a key. Say so; API_KEYS (or AUTH_MODE) in the
  // environment turns authentication on instead.
  const authConfigured = ['AUTH_MODE', 'API_KEYS', 'API_KEYS_FILE'].some((name) => process.env[name]);
  if (!authConfigured) {
    env.AUTH_MODE = 'none';
    console.log(
      'session-service: AUTH_MODE=none (no API keys; local development). Set API_KEYS=<tenant>:<key> to require keys.',
    );
  }

  console.log('building the services…');
  for (const { name } of SERVICES) {
    execFileSync(resolve(repoRoot, 'node_modules/.bin/nest'), ['build', name], { stdio: 'inherit', cwd: repoRoot });
  }

  for (const { name, port } of SERVICES) {
    const child = spawn(process.execPath, [resolve(repoRoot, `dist/apps/${name}/main.js`)], {
      cwd: repoRoot,
      env: { ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    prefixOutput(child, name);
    child.on('exit', (code, signal) => {
      children.delete(name);
      if (!stopping) {
        console.error(`${name} exited (${signal ?? `code ${code}`}); stopping everything`);
        void shutdown(1);
      }
    });
    children.set(name, child);
  }

  await Promise.all(SERVICES.map(({ name, port }) => waitHealthy(name, port)));
  console.log('\nContext Ledger is up:');
  for (const { name, port } of SERVICES) {
    console.log(`  ${name.padEnd(20)} http://127.0.0.1:${port}   (health: /health, metrics: /metrics)`);
  }
  console.log(`  Kafka brokers        ${env.KAFKA_BROKERS}`);
  console.log(`  MongoDB              ${env.MONGODB_URI}`);
  console.log('\nPress Ctrl-C to stop.');
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

async function waitHealthy(name: string, port: number, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!children.has(name)) throw new Error(`${name} exited before it became healthy`);
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
  await Promise.all(
    [...children.values()].map(
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
