// @ts-check
const { mkdirSync, readdirSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { TestEnvironment } = require('jest-environment-node');

/**
 * The integration project's test environment: Node's, holding a lock from before the file's first hook until after
 * its last one, so integration files run one at a time (as when Jest ran everything on one worker) while the unit
 * specs run on the other worker beside them. Fault tests stop brokers and time their answers under load: a second
 * heavy file beside them would change what they measure.
 *
 * The lock is a queue of tickets in a directory (CTXLEDGER_TEST_LOCK, set by the global set-up), one file per
 * waiting worker named by when it came and its pid: the oldest ticket holds the lock, so a worker that just
 * released it cannot take it again before one that was waiting. A ticket whose process is gone is removed.
 */
class IntegrationEnvironment extends TestEnvironment {
  /** @type {string | undefined} */
  ticket;

  async setup() {
    const dir = process.env.CTXLEDGER_TEST_LOCK;
    if (dir) {
      mkdirSync(dir, { recursive: true });
      const mine = `${String(Date.now()).padStart(15, '0')}-${String(process.pid).padStart(10, '0')}`;
      writeFileSync(join(dir, mine), '');
      this.ticket = join(dir, mine);
      for (;;) {
        const first = readdirSync(dir)
          .sort()
          .find((ticket) => alive(ticket) || (rmSync(join(dir, ticket), { force: true }), false));
        if (first === mine) break;
        await sleep(200);
      }
    }
    await super.setup();
  }

  async teardown() {
    try {
      await super.teardown();
    } finally {
      if (this.ticket) rmSync(this.ticket, { force: true });
      this.ticket = undefined;
    }
  }
}

/** The process that took the ticket is still running. */
function alive(/** @type {string} */ ticket) {
  const pid = Number(ticket.split('-')[1]);
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code !== 'ESRCH';
  }
}

module.exports = IntegrationEnvironment;
