// @ts-check
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Jest's order (failed first, then slowest by the last run's timings, else largest), rearranged for two workers
 * whose integration files run one at a time (integration-environment.js): the first integration file, then every
 * unit spec, then the other integration files. One worker starts the integration files at once while the other
 * runs the unit specs; a worker never waits for the integration lock while unit specs remain.
 */
class TestSequencer extends Sequencer {
  /** @param {import('@jest/test-result').Test[]} tests */
  sort(tests) {
    const sorted = /** @type {import('@jest/test-result').Test[]} */ (super.sort(tests));
    const integration = sorted.filter((t) => t.context.config.displayName?.name === 'integration');
    const others = sorted.filter((t) => t.context.config.displayName?.name !== 'integration');
    return [...integration.slice(0, 1), ...others, ...integration.slice(1)];
  }
}

module.exports = TestSequencer;
