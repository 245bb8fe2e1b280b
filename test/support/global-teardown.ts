import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../..');

/** Stops the local stack only when this test run started it. */
export default function globalTeardown(): void {
  if (process.env.CTXLEDGER_TEST_STARTED_STACK === '1') {
    execFileSync(resolve(root, 'deploy/local/stack'), ['down'], { stdio: 'inherit', cwd: root });
  }
}
