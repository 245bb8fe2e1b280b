import { execFile, execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, SERVICE_NAMES, stack, stackEnv, stackIsUp } from '../../tools/local-stack';

export { SERVICE_NAMES as SERVICES } from '../../tools/local-stack';

/**
 * Brings the local Kafka + MongoDB-wire stack up when it is not already running (and remembers
 * whether it did, so the teardown stops only what this run started), exports its settings to the
 * test workers, installs kcat, prometheus/promtool and chromium (the inspector's browser tests) when missing, and builds the services the tests
 * start as processes (the three builds at once, without Nest's per-build type check: see build-webpack.js). When a later step fails (a build error), the stack it started is stopped again, so the
 * next run or `npm start` does not meet busy ports.
 * KAFKA_BROKERS / MONGODB_URI already in the environment point the tests at an external stack instead.
 */
export default async function globalSetup(): Promise<void> {
  const external = Boolean(process.env.KAFKA_BROKERS && process.env.MONGODB_URI);
  // The lock that runs integration files one per worker at a time, `@exclusive` ones alone
  // (integration-environment.js), unique to this run.
  process.env.CTXLEDGER_TEST_LOCK = join(tmpdir(), `ctxledger-integration-${process.pid}.lock`);
  // The names of the stack instances the suites that stop a broker or the MongoDB-wire server share, one per worker
  // (outageStack), unique to this run: the first of them on a worker starts its worker's, the teardown stops them.
  process.env.CTXLEDGER_OUTAGE_STACK = `outage-${process.pid}`;
  let started = false;
  try {
    if (!external) {
      started = !stackIsUp();
      if (started) stack('up');
      process.env.CTXLEDGER_TEST_STARTED_STACK = started ? '1' : '0';
      Object.assign(process.env, stackEnv());
    }
    execFileSync(resolve(repoRoot, 'deploy/local/ensure-kcat'), { stdio: 'inherit', cwd: repoRoot });
    execFileSync(resolve(repoRoot, 'deploy/local/ensure-prometheus'), { stdio: 'inherit', cwd: repoRoot });
    execFileSync(resolve(repoRoot, 'deploy/local/ensure-chromium'), { stdio: 'inherit', cwd: repoRoot });
    process.env.CTXLEDGER_TEST_MODEL = execFileSync(resolve(repoRoot, 'deploy/local/ensure-test-model'), {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    await Promise.all(SERVICE_NAMES.map(build));
  } catch (error) {
    if (started) stack('down');
    throw error;
  }
}

/** `nest build <name>`, quiet unless it fails: then the error carries the compiler's output. */
async function build(name: string): Promise<void> {
  try {
    await promisify(execFile)(
      resolve(repoRoot, 'node_modules/.bin/nest'),
      ['build', name, '--webpackPath', 'test/support/build-webpack.js'],
      { cwd: repoRoot, env: { ...process.env, CTXLEDGER_BUILD_PROJECT: name }, maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`nest build ${name} failed:\n${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}`, {
      cause: error,
    });
  }
}
