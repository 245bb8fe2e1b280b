/**
 * What test runners report: their closing counts (`testCountsOf`), their verdicts on a failed test, and how a test
 * failed in their words (`howTestFailed`), for pytest, jest, vitest, mocha, node:test, bun, go, cargo, unittest,
 * PHPUnit, ExUnit, RSpec, Maven Surefire, Gradle, dotnet, CTest and XCTest. Read by `call-outcome.ts`.
 */
import { flat, oneLine } from './text';

const TEST_COUNTS: readonly RegExp[] = [
  // Jest / Vitest: "Tests:       2 failed, 10 passed, 12 total", "Tests  3 failed | 40 passed (43)"
  /^\s*Tests?:?\s+((?:\d+ \w+(?:,|\s\|)?\s*)+)/m,
  // pytest: "===== 2 failed, 10 passed in 1.20s =====", and `-q`'s bare "2 failed, 10 passed in 61.20s (0:01:01)"
  /^=+ ((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected)(?:, )?)+)(?: in [\d.]+s(?: \([\d:]+\))?)? =+$/m,
  /^((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected)(?:, )?)+) in [\d.]+s(?: \([\d:]+\))?\s*$/m,
  // cargo: "test result: FAILED. 10 passed; 2 failed; 0 ignored"
  /test result: \w+\. ((?:\d+ \w+;?\s*)+)/,
  // mocha: "10 passing (2s)", "2 failing" (its time dropped below)
  /^\s*(\d+ passing(?:[^\n]*\n\s*\d+ (?:failing|pending))*)/m,
  // Go: "--- FAIL: TestX", "ok  pkg 0.01s"; plain "N passed, N failed"
  /^\s*(\d+ passed, \d+ failed(?:, \d+ skipped)?)\s*$/m,
  // RSpec and ExUnit: "3 examples, 1 failure, 1 pending", "1 doctest, 3 tests, 0 failures, 1 excluded"
  /^\s*((?:\d+ (?:doctests?|propert(?:y|ies)), )*\d+ (?:examples?|tests?), \d+ failures?(?:, \d+ (?:pending|excluded|skipped|invalid))*)\s*$/m,
  // PHPUnit: "Tests: 2, Assertions: 2, Failures: 1.", "OK (2 tests, 2 assertions)"
  /^\s*(Tests: \d+, Assertions: \d+(?:, [A-Z][\w ]+: \d+)*)\.?\s*$/m,
  /^OK \((\d+ tests?, \d+ assertions?)\)/m,
  // Maven's Surefire, its closing line (a test class's own ends with its time): "Tests run: 2, Failures: 1, Errors: 0, Skipped: 0"
  /^(?:\[\w+\]\s+)?(Tests run: \d+, Failures: \d+, Errors: \d+, Skipped: \d+)\s*$/m,
  // Gradle: "2 tests completed, 1 failed, 1 skipped"
  /^\s*(\d+ tests? completed, \d+ failed(?:, \d+ skipped)?)\s*$/m,
  // XCTest: "Executed 2 tests, with 1 failure (0 unexpected)" ("with" dropped below)
  /^\s*Executed (\d+ tests?, with \d+ failures?)/m,
];
/** TAP's, node:test's and bun's closing counts: "# pass 10", "# fail 2"; "ℹ pass 1", "ℹ fail 1"; " 1 pass", " 1 fail". */
const PASS_FAIL_COUNTS = /^[#ℹ] pass (\d+)\n[#ℹ] fail (\d+)|^ ?(\d+) pass\n ?(\d+) fail$/m;
/** CTest's: "50% tests passed, 1 tests failed out of 2". */
const CTEST_COUNTS = /^\s*\d+% tests passed, (\d+) tests? failed out of (\d+)/m;

/**
 * `dotnet test`: `Test summary: total: 3, failed: 1, succeeded: 2, skipped: 0, duration: 1.2s` (.NET 8's terminal
 * logger), `Failed!  - Failed:     1, Passed:     2, Skipped:     0, Total:     3, Duration: 45 ms - A.Tests.dll`.
 */
const DOTNET_COUNTS =
  /^\s*(?:Test summary: total: \d+, failed: (\d+), succeeded: (\d+), skipped: (\d+)|(?:Passed|Failed)!\s+-\s+Failed:\s+(\d+), Passed:\s+(\d+), Skipped:\s+(\d+))/m;

/** "2 failed, 10 passed" from a test runner's closing lines, if the output has them. */
export function testCountsOf(text: string): string | undefined {
  if (lastCounts?.text !== text) lastCounts = { text, counts: countsIn(text) };
  return lastCounts.counts;
}
/** The text last read and its counts: a result's error line and its outcome both ask (`errorLineOf`, `callOutcome`). */
let lastCounts: { text: string; counts: string | undefined } | undefined;

function countsIn(text: string): string | undefined {
  const tail = text.length > 4000 ? text.slice(-4000) : text;
  const dotnet = DOTNET_COUNTS.exec(tail);
  if (dotnet) {
    const [failed, passed, skipped] = dotnet[1] !== undefined ? dotnet.slice(1, 4) : dotnet.slice(4, 7);
    return `${failed} failed, ${passed} passed, ${skipped} skipped`;
  }
  const passFail = PASS_FAIL_COUNTS.exec(tail);
  if (passFail) return `${passFail[2] ?? passFail[4]} failed, ${passFail[1] ?? passFail[3]} passed`;
  const ctest = CTEST_COUNTS.exec(tail);
  if (ctest) return `${ctest[1]} failed, ${Number(ctest[2]) - Number(ctest[1])} passed`;
  for (const re of TEST_COUNTS) {
    const m = re.exec(tail);
    if (m)
      return (
        m[1]!
          .replace(/\s+/g, ' ')
          .replace(/ \([\d.]+m?s\)/, '')
          .replace(/, with /, ', ')
          .replace(/[;,|\s]+$/, '')
          .trim()
          // Counts as `Name: N` (PHPUnit's, Surefire's) as `N name`, as the others say them (and read back).
          .replace(
            /\b(Tests run|[A-Z][a-z]+): (\d+)/g,
            (_, name: string, n: string) => `${n} ${name === 'Tests run' ? 'tests' : name.toLowerCase()}`,
          )
      );
  }
  return undefined;
}
/** A failed test marked as such (vitest's `× suite > test`, with the reason on the line under it: `→ expected …`). */
export const MARKED_LINE = /^\s*[×✖✗✘] \S/;

/** The reason on the line under a marked test: vitest's `→ expected …`, node:test's `AssertionError […]: …`. */
export function reasonUnder(lines: readonly string[], head: string): string | undefined {
  const at = lines.findIndex((l) => flat(l) === head) + 1;
  const under = at > 0 ? (lines[at] ?? '') : '';
  return /^\s*→ (.+)$/.exec(under)?.[1]?.trim() ?? (REASON_LINE.test(under) ? withLineUnder(lines, at) : undefined);
}
/**
 * A test runner's verdict that does not say how a test failed: jest's `FAIL src/a.test.ts`, Go's closing `FAIL` and
 * `FAIL example.com/m 0.01s`, pytest's `FAILED tests/a.py::test_b` without its ` - reason` (and `ERROR tests/a.py`, a
 * file it could not collect), cargo's `error: test failed`.
 */
export const TEST_VERDICT =
  /^\s*(?:FAIL(?:ED)?\b(?!.*\s-\s)|error: test failed\b|ERROR \S+(?:\.py|::\S+)\s*$|ERROR: \w+ \(|Failed \S+ \[\d)|<<< (?:FAILURE|ERROR)!|\S > .+ FAILED\s*$/;
/** Maven Surefire's verdict on a test class: `[ERROR] Tests run: 2, Failures: 1, … <<< FAILURE! -- in a.BTest`. */
export const SUREFIRE_VERDICT = /^(?:\[ERROR\]\s*)?Tests run:.*?<<< (FAILURE|ERROR)!\s*-{1,2} in (\S+).*$/;
/**
 * How a test failed, in the words of an assertion or an exception (Node's `AssertionError [ERR_ASSERTION]: …`,
 * PHPUnit's `Failed asserting that 4 matches expected 5.`).
 */
const REASON_LINE =
  /^\s*(?:error:\s+)?(?:[\w.]*(?:Error|Exception)\b(?: \[\w+\])?\s*:|expect\(|assert(?:ion)?\b|Failed asserting\b)/;

/** The values an assertion compared, under it (jest's `Expected: 4` and `Received: 5`, `Received message: "…"`). */
const COMPARED_VALUE = /^\s*(?:Expected|Received)(?: [a-z]+)?: +\S/;

/**
 * The failing test and how it failed, from a runner's report: Go's `--- FAIL: TestAdd` and the line under it (or,
 * with `-v`, above it), jest's `● suite › test` and its error, cargo's `thread 'tests::x' panicked at
 * src/lib.rs:10:5:` and its message, ExUnit's numbered test and its assertion, Gradle's and dotnet's failed test and
 * its exception, Maven's closing `Failures:` line, pytest's `E   assert 1 == 2` with its section's test (unless
 * `said`, the line this explains, names it already); else the first assertion or exception line.
 */
export function howTestFailed(lines: readonly string[], said = ''): string | undefined {
  const next = (i: number): string | undefined => lines[i + 1]?.trim();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const go = /^\s*--- FAIL: (\S+)/.exec(l);
    if (go) {
      if (/^\s{2,}\S/.test(lines[i + 1] ?? '')) return `${go[1]}: ${next(i)}`;
      // `go test -v` logs a test's lines under its `=== RUN`, before its verdict.
      const run = lines.lastIndexOf(`=== RUN   ${go[1]}`, i);
      const logged = run < 0 ? undefined : lines.slice(run + 1, i).find((r) => /^\s{2,}\S/.test(r));
      return logged === undefined ? go[1] : `${go[1]}: ${logged.trim()}`;
    }
    const jest = /^\s*● (.+)$/.exec(l);
    if (jest) {
      const j = lines.slice(i + 1, i + 12).findIndex((r) => REASON_LINE.test(r));
      // (A suite that did not run says why on the line under: `Cannot find module './missing'`.)
      if (j < 0) return /failed to run/.test(jest[1]!) && next(i) ? `${jest[1]!.trim()}: ${next(i)}` : jest[1]!.trim();
      const values = lines.slice(i + 2 + j, i + 6 + j).filter((r) => COMPARED_VALUE.test(r));
      return `${jest[1]!.trim()}: ${lines[i + 1 + j]!.trim()}${values.length > 0 ? ` (${values.map((v) => oneLine(v, 80)).join('; ')})` : ''}`;
    }
    if (/\bpanicked at\b/.test(l)) return withLineUnder(lines, i, Infinity);
    // ExUnit's `1) test adds (CalcTest)`, its place, then `Assertion with == failed` and the code and values under it.
    const ex = /^\s*\d+\) (test .+)$/.exec(l);
    if (ex) {
      const body = lines.slice(i + 1, i + 12).map((r) => r.trim());
      const what = body.find((r) => /^(?:Assertion with|\*\* \()/.test(r));
      const shown = body.filter((r) => /^(?:code|left|right): /.test(r)).map((r) => oneLine(r, 60));
      if (what !== undefined) return `${ex[1]}: ${what}${shown.length > 0 ? ` (${shown.join('; ')})` : ''}`;
    }
    // Gradle's `CalcTest > testAdd() FAILED` and the exception under it; dotnet's `Failed A.B [5 ms]`, `Error Message:`.
    if (/\S > .+ FAILED\s*$/.test(l) && /^\s+\S/.test(lines[i + 1] ?? '')) return next(i);
    if (/^\s*Failed \S+ \[\d/.test(l) && /^\s*Error Message:\s*$/.test(lines[i + 1] ?? '') && lines[i + 2])
      return lines[i + 2]!.trim();
    // Maven's closing `[ERROR] Failures:` (or `Errors:`) and the test and assertion under it.
    if (/^\[ERROR\] (?:Failures|Errors):\s*$/.test(l) && lines[i + 1]?.startsWith('[ERROR]'))
      return lines[i + 1]!.replace(/^\[ERROR\]\s*/, '').trim();
    if (/^E\s{2,}\S/.test(l)) {
      const test = pytestSectionAbove(lines, i);
      return test === undefined || said.includes(test) ? l.slice(1).trim() : `${test}: ${l.slice(1).trim()}`;
    }
  }
  const reason = lines.findIndex((l) => REASON_LINE.test(l));
  if (reason < 0) return undefined;
  // (And the values it compared under it, as jest's and bun's `Expected: 3`, `Received: 2`.)
  const values = lines.slice(reason + 1, reason + 5).filter((r) => COMPARED_VALUE.test(r));
  const line = withLineUnder(lines, reason);
  return values.length > 0 ? `${line} (${values.map((v) => oneLine(v, 80)).join('; ')})` : line;
}

/**
 * A line, and the line under it when it ends in a colon and that line is at most `max` long: a reason's values
 * (Node's `…strictly equal:` then `4 !== 5`), a Rust panic's message (`panicked at src/main.rs:4:5:` then the message).
 */
export function withLineUnder(lines: readonly string[], at: number, max = 80): string {
  const line = lines[at]!.trim();
  const under = lines[at + 1]?.trim();
  return line.endsWith(':') && under && under.length <= max ? `${line} ${under}` : line;
}

/**
 * The test (or the file whose collection failed) a pytest report's section above line `at` is about: `____ test_b
 * ____`, `____ TestA.test_b[1] ____`, `____ ERROR collecting tests/test_a.py ____`.
 */
function pytestSectionAbove(lines: readonly string[], at: number): string | undefined {
  for (let i = at - 1; i >= 0 && i >= at - 200; i--) {
    const m = /^_{3,} (\S.*?) _{3,}$/.exec(lines[i]!.trim());
    if (m) return m[1]!.replace(/^ERROR collecting /, '');
  }
  return undefined;
}
/** Test counts that tell of a failure (`2 failed, 10 passed`, `fail 1`). */
export const TESTS_FAILED = /[1-9]\d* (?:failed|failing|errors?|failures?)\b|fail [1-9]/;
