import { rmSync } from 'node:fs';
import { stack } from '../../tools/local-stack';

/** Stops the local stack only when this test run started it; removes the run's integration lock if left. */
export default function globalTeardown(): void {
  if (process.env.CTXLEDGER_TEST_LOCK) rmSync(process.env.CTXLEDGER_TEST_LOCK, { recursive: true, force: true });
  if (process.env.CTXLEDGER_TEST_STARTED_STACK === '1') stack('down');
}
