// @ts-check
const Sequencer = require('@jest/test-sequencer').default;
const { isExclusive } = require('./integration-environment');

/**
 * Jest's order (failed first, then slowest by the last run's timings, else largest), rearranged for the workers
 * that take files in this order, each its next one when it is free (integration-environment.js: an `@exclusive`
 * integration file runs alone, the others one per worker at once):
 *
 * 1. the exclusive integration files, the unit specs behind the first of them: while one worker runs an exclusive
 *    file the others run the unit specs (then wait for the lock, as they must);
 * 2. the other integration files, slowest first, one per worker, so the last to end is a short one.
 *
 * Exclusive files before the shared ones, not between them: a worker that takes an exclusive file while the other
 * runs a shared one waits idle until that ends, so the fewer changes from one kind to the other, the better.
 */
class TestSequencer extends Sequencer {
  /** @param {import('@jest/test-result').Test[]} tests */
  sort(tests) {
    const sorted = /** @type {import('@jest/test-result').Test[]} */ (super.sort(tests));
    const integration = sorted.filter((t) => t.context.config.displayName?.name === 'integration');
    const units = sorted.filter((t) => t.context.config.displayName?.name !== 'integration');
    const exclusive = integration.filter((t) => isExclusive(t.path));
    const shared = integration.filter((t) => !isExclusive(t.path));
    return [...exclusive.slice(0, 1), ...units, ...exclusive.slice(1), ...shared];
  }
}

module.exports = TestSequencer;
