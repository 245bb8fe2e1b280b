import { registerAs } from '@nestjs/config';

/**
 * Hooks of the integration tests, kept out of the service's configuration (not validated with it, not in the
 * README's table, not in SummarizerSettings). They are read only in a process started by the test runner
 * (NODE_ENV=test: Jest sets it, and the services a test starts inherit it); anywhere else (the images set
 * NODE_ENV=production) every hook is off whatever the environment says.
 */
export interface SummarizerTestHooks {
  /**
   * SUMMARIZER_TEST_PAUSE_AFTER_STORE=true: after a result is stored and before it is published, log
   * PAUSED_AFTER_STORE_MARKER and stop handling (the test then kills the process). Proves a restart reuses the
   * stored result.
   */
  readonly pauseAfterStore: boolean;
}

export const summarizerTestHooks = registerAs('summarizerTestHooks', (): SummarizerTestHooks => ({
  pauseAfterStore: process.env.NODE_ENV === 'test' && process.env.SUMMARIZER_TEST_PAUSE_AFTER_STORE === 'true',
}));
