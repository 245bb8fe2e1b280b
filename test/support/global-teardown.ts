import { existsSync, rmSync } from 'node:fs';
import { stack, stackStateDir } from '../../tools/local-stack';
import { killStackInstance } from './stack-kill';
import { outageStacks } from './stack-settings';

/**
 * Kills the run's outage stacks a suite started (their state directories exist: removed next, nothing of them needs a
 * clean stop) and removes them; stops the local stack only when this test run started it; removes the run's
 * integration lock if left.
 */
export default async function globalTeardown(): Promise<void> {
  if (process.env.CTXLEDGER_TEST_LOCK) rmSync(process.env.CTXLEDGER_TEST_LOCK, { recursive: true, force: true });
  try {
    if (process.env.CTXLEDGER_OUTAGE_STACK) {
      for (const { env } of outageStacks()) {
        if (!existsSync(stackStateDir(env))) continue;
        await killStackInstance(env);
        stack('down', env);
        rmSync(stackStateDir(env), { recursive: true, force: true });
      }
    }
  } finally {
    if (process.env.CTXLEDGER_TEST_STARTED_STACK === '1') stack('down');
  }
}
