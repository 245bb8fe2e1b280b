const { existsSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

// Prints the plain closing line "N passed, N failed" that CI reads, after Jest's own summary, and before it how the
// integration files used their lock (integration-environment.js).
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const times = process.env.CTXLEDGER_TEST_LOCK && join(process.env.CTXLEDGER_TEST_LOCK, 'times.jsonl');
    if (times && existsSync(times)) {
      const files = readFileSync(times, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      const s = (ms) => `${Math.round(ms / 1000)} s`;
      const sum = (f) => files.reduce((n, file) => n + f(file), 0);
      const span = Math.max(...files.map((f) => f.released)) - Math.min(...files.map((f) => f.asked));
      const exclusive = files.filter((f) => f.exclusive);
      process.stderr.write(
        `\nintegration: ${files.length} files (${exclusive.length} exclusive) in ${s(span)} from the first to ` +
          `the last; ${s(sum((f) => f.released - f.got))} running (exclusive ` +
          `${s(exclusive.reduce((n, f) => n + f.released - f.got, 0))}), ${s(sum((f) => f.got - f.asked))} ` +
          'waiting for the lock\n',
      );
      // Where the time goes: the slowest files by their time holding the lock (Jest's own figure adds the wait).
      const slowest = [...files].sort((a, b) => b.released - b.got - (a.released - a.got)).slice(0, 12);
      process.stderr.write(
        `slowest (holding the lock): ${slowest
          .map((f) => `${relative(process.cwd(), f.file)} ${s(f.released - f.got)}${f.exclusive ? ' (x)' : ''}`)
          .join(', ')}\n`,
      );
    }
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stderr.write(
      `\njest: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}
module.exports = SummaryReporter;
