// @ts-check
const { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { TestEnvironment } = require('jest-environment-node');

/**
 * The integration project's test environment: Node's, holding a read/write lock from before the file's first hook
 * until after its last one. Three workers run the suite (jest.config.js), so three integration files may run at
 * once, one on each worker, beside the unit specs:
 *
 * - an `@exclusive` file (the pragma in the docblock at the very top of the file, with the reason after it) runs
 *   alone: it drives a service as hard as it answers, or counts on the load it makes itself, and a second
 *   integration file beside it would change what it measures (or be disturbed by it).
 * - every other file shares the lock with the others running (one per worker): it uses topics, consumer groups,
 *   databases, session ids and ports of its own (`unique()`, port 0), so they never meet. One marked `@outage`
 *   (same form) stops the broker or the MongoDB-wire server of its worker's outage stack (`outageStack`): one stack
 *   per worker, so two such files, each on its worker, never stop each other's. Only `@outage` and `@exclusive`
 *   files may use an outage stack (FaultStack checks CTXLEDGER_TEST_OUTAGE).
 *
 * The lock is a queue of tickets in a directory (CTXLEDGER_TEST_LOCK, set by the global set-up), one file per
 * waiting or running file, named by when it came, its worker's pid and its kind (`x` exclusive, `s` shared). An
 * exclusive ticket goes when it is the oldest; a shared one when no exclusive ticket is older. So the oldest ticket
 * is served first, a worker that just released the lock cannot overtake one that was waiting, and a waiting
 * exclusive ticket holds back the shared ones that came after it (an exclusive file is never starved). A ticket
 * whose process is gone is removed. Each file, when it releases the lock, adds a line to `times.jsonl` there: when
 * it asked for the lock, when it got it, when it released it (the summary reporter prints the totals).
 */
class IntegrationEnvironment extends TestEnvironment {
  /** @type {string | undefined} */
  ticket;
  /** @type {boolean} */
  exclusive;
  /** @type {string} */
  testPath;
  /** When the file asked for the lock and when it got it (ms since the epoch). */
  times = { asked: 0, got: 0 };

  /**
   * @param {import('@jest/environment').JestEnvironmentConfig} config
   * @param {import('@jest/environment').EnvironmentContext} context
   */
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    this.exclusive = isExclusive(context.testPath);
  }

  async setup() {
    const dir = process.env.CTXLEDGER_TEST_LOCK;
    this.times.asked = Date.now();
    if (dir) {
      mkdirSync(dir, { recursive: true });
      const mine = `${String(Date.now()).padStart(15, '0')}-${String(process.pid).padStart(10, '0')}-${this.exclusive ? 'x' : 's'}`;
      writeFileSync(join(dir, mine), '');
      this.ticket = join(dir, mine);
      for (;;) {
        const queue = readdirSync(dir)
          .filter((name) => TICKET.test(name))
          .sort()
          .filter((ticket) => alive(ticket) || (rmSync(join(dir, ticket), { force: true }), false));
        const ahead = queue.slice(0, queue.indexOf(mine));
        if (this.exclusive ? ahead.length === 0 : !ahead.some((ticket) => ticket.endsWith('-x'))) break;
        await sleep(200);
      }
    }
    this.times.got = Date.now();
    await super.setup();
    // Read by FaultStack: an outage stack is an `@outage` or `@exclusive` file's only.
    this.global.process.env.CTXLEDGER_TEST_OUTAGE = this.exclusive || hasPragma(this.testPath, 'outage') ? '1' : '';
  }

  async teardown() {
    try {
      await super.teardown();
    } finally {
      if (this.ticket) {
        rmSync(this.ticket, { force: true });
        const line = { file: this.testPath, exclusive: this.exclusive, ...this.times, released: Date.now() };
        appendFileSync(join(dirname(this.ticket), 'times.jsonl'), `${JSON.stringify(line)}\n`);
      }
      this.ticket = undefined;
    }
  }
}

/** A ticket's name: when it came (ms), the pid of its worker, its kind. */
const TICKET = /^\d{15}-\d{10}-[xs]$/;

/**
 * The file at `testPath` has the pragma `@<name>` in its leading docblock (the comment that opens it, as Jest reads
 * pragmas).
 */
function hasPragma(/** @type {string} */ testPath, /** @type {string} */ name) {
  const docblock = /^\s*\/\*\*[\s\S]*?\*\//.exec(readFileSync(testPath, 'utf8'))?.[0] ?? '';
  return new RegExp(`(?:^|\\s)@${name}\\b`).test(docblock);
}

/** The file at `testPath` runs alone (`@exclusive`). Also read by the test sequencer, which runs such files together. */
const isExclusive = (/** @type {string} */ testPath) => hasPragma(testPath, 'exclusive');

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
module.exports.isExclusive = isExclusive;
