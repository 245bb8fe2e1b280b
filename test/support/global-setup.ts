import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const stack = resolve(root, 'deploy/local/stack');

/**
 * Brings the local Kafka + MongoDB-wire stack up when it is not already running, and remembers
 * whether it did so the teardown stops only what this run started. Installs kcat when missing.
 */
export default function globalSetup(): void {
  const running = isRunning();
  if (!running) {
    execFileSync(stack, ['up'], { stdio: 'inherit', cwd: root });
  }
  process.env.CTXLEDGER_TEST_STARTED_STACK = running ? '0' : '1';
  execFileSync(resolve(root, 'deploy/local/ensure-kcat'), { stdio: 'inherit', cwd: root });
}

function isRunning(): boolean {
  try {
    execFileSync(stack, ['status'], { stdio: 'ignore', cwd: root });
    return true;
  } catch {
    return false;
  }
}
