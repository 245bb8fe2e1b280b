import { stack } from '../../tools/local-stack';

/** Stops the local stack only when this test run started it. */
export default function globalTeardown(): void {
  if (process.env.CTXLEDGER_TEST_STARTED_STACK === '1') stack('down');
}
