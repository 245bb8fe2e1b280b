// @ts-check
const { mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { TestEnvironment } = require('jest-environment-node');

/**
 * The integration project's test environment: Node's, holding a lock from before the file's first hook until after
 * its last one, so integration files run one at a time (as when Jest ran everything on one worker) while the unit
 * specs run on the other worker beside them. Fault tests stop brokers and time their answers under load: a second
 * heavy file beside them would change what they measure. The lock is a directory (CTXLEDGER_TEST_LOCK, set by the
 * global set-up) naming the worker that holds it; a holder that died is replaced.
 */
class IntegrationEnvironment extends TestEnvironment {
  /** @type {string | undefined} */
  lock = process.env.CTXLEDGER_TEST_LOCK;
  held = false;

  async setup() {
    if (this.lock) {
      const lock = this.lock;
      for (;;) {
        try {
          mkdirSync(lock);
          writeFileSync(join(lock, 'pid'), String(process.pid));
          this.held = true;
          break;
        } catch (error) {
          if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
          if (holderDied(lock)) rmSync(lock, { recursive: true, force: true });
          else await sleep(200);
        }
      }
    }
    await super.setup();
  }

  async teardown() {
    try {
      await super.teardown();
    } finally {
      if (this.held && this.lock) rmSync(this.lock, { recursive: true, force: true });
      this.held = false;
    }
  }
}

/** The lock names a process that is gone (read after a short grace: the holder writes its pid right after mkdir). */
function holderDied(/** @type {string} */ lock) {
  let pid;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    return false; // just taken, pid not written yet (or just released)
  }
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'ESRCH';
  }
}

module.exports = IntegrationEnvironment;
