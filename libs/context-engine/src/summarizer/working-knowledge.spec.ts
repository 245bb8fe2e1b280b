import fc from 'fast-check';
import type { ChatMessage, ToolCall } from '../model/message';
import { answer, newCall, say } from '../testing/fixtures';
import { truncateHeadTail } from '../stages/common';
import { callOutcome } from './call-outcome';
import { summarizeDeterministic } from './deterministic-summarizer';
import { toolActivity } from './tool-activity';

/**
 * What a digest keeps of the agent's working knowledge: code symbols without language noise or the agent's own
 * tools, errors resolved by a later success on the same target, repeats collapsed, whole file names only.
 */

const call = newCall;
const bash = (command: string): ToolCall => call('bash', { command });
/** One assistant step: a call and its result. */
const step = (c: ToolCall, result: string, isError?: boolean): ChatMessage[] => [
  say('', c),
  answer(c, result, isError),
];
const digest = (messages: ChatMessage[], previousSummary?: string) =>
  summarizeDeterministic({ messages, maxChars: 100_000, ...(previousSummary ? { previousSummary } : {}) }).sections;

const SYNTAX_ERROR =
  'Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.\nERRORS:\n- E999 IndentationError: unexpected indent';

describe('code symbols: the code, not the language or the agent', () => {
  it('leaves out keywords, builtin types and the names of the tools and programs the session used', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Fix the pixel handler.' },
      say("Let's use the `find_file` command, then `str_replace_editor` to change `get_pixeldata()`."),
      ...step(
        bash('find_file "numpy_handler.py"'),
        'Found 1 matches for "numpy_handler.py" in /repo:\n/repo/pkg/numpy_handler.py',
      ),
      ...step(bash('grep -n "def convert_pixel_data" pkg/dataset.py'), '1444:    def convert_pixel_data(self):'),
      ...step(
        call('str_replace_editor', {
          command: 'str_replace',
          path: '/repo/pkg/numpy_handler.py',
          old_str: 'x',
          new_str:
            'class PixelHandler:\n    def get_pixeldata(self, ds) -> float:\n        return None\n\ndef needs_pixel_representation(ds):\n    lines = []\n    return lines\n',
        }),
        'The file /repo/pkg/numpy_handler.py has been edited.',
      ),
      ...step(call('search_dir', { search_term: 'str int float' }), 'No matches found'),
    ];
    const sections = digest(messages);
    const symbols = sections.codeSymbols.map((s) => s.replace(/\(\)$/, ''));
    // What the edit wrote is named on its file's line (and not again among the symbols).
    expect(sections.filesTouched).toContain(
      '/repo/pkg/numpy_handler.py (edit, seen; changed PixelHandler, get_pixeldata(), needs_pixel_representation)',
    );
    expect(symbols).toEqual(expect.arrayContaining(['convert_pixel_data']));
    for (const named of ['get_pixeldata', 'PixelHandler', 'needs_pixel_representation'])
      expect(symbols).not.toContain(named);
    for (const noise of ['def', 'class', 'self', 'None', 'float', 'int', 'str', 'return', 'lines'])
      expect([...symbols, ...sections.filesTouched].join('\n')).not.toMatch(new RegExp(`\\b${noise}\\b`));
    for (const tool of ['find_file', 'str_replace_editor', 'bash', 'search_dir', 'grep'])
      expect(symbols).not.toContain(tool);
  });

  it('drops the same noise from an earlier summary it merges', () => {
    const previous = ['## Code symbols', '- self', '- int', '- None', '- TimeDelta', '- _serialize()'].join('\n');
    expect(digest([], previous).codeSymbols).toEqual(['_serialize()', 'TimeDelta']);
  });
});

describe('errors: resolved by a later success on the same target', () => {
  it('a retried SWE-agent edit with another range that succeeds resolves the failed one', () => {
    const messages: ChatMessage[] = [
      ...step(
        bash('open pydicom/pixel_data_handlers/numpy_handler.py 293'),
        '[File: numpy_handler.py (372 lines total)]',
      ),
      ...step(bash("edit 287:296\n        'BitsAllocated',\nend_of_edit"), SYNTAX_ERROR),
      ...step(bash("edit 287:297\n        'BitsAllocated',\nend_of_edit"), 'File updated. Please review the changes.'),
      ...step(bash('python reproduce_bug.py'), 'Script completed successfully, no errors.'),
    ];
    const errors = digest(messages).errorsSeen;
    expect(errors).toHaveLength(1);
    // The label names the file the edit changed (the command does not).
    expect(errors[0]).toMatch(
      /^bash edit 287:296 on pydicom\/pixel_data_handlers\/numpy_handler\.py — .*\[fixed later\]$/,
    );
  });

  it('stays unresolved when nothing later succeeded on that target', () => {
    const messages: ChatMessage[] = [
      ...step(bash('open src/a.py'), '[File: src/a.py (40 lines total)]'),
      ...step(bash('edit 10:12\nx = 1\nend_of_edit'), SYNTAX_ERROR),
      // Another file changed, another script run: not the failed edit's target.
      ...step(bash('open src/b.py'), '[File: src/b.py (10 lines total)]'),
      ...step(bash('edit 1:2\ny = 2\nend_of_edit'), 'File updated.'),
      ...step(call('Read', { file_path: 'src/a.py' }), 'x = 0'),
    ];
    expect(digest(messages).errorsSeen).toEqual([
      expect.stringMatching(/edit 10:12 on src\/a\.py — .*\[unresolved\]$/),
    ]);
  });

  it('an edit tool: another edit of the same file resolves it, a read of it does not', () => {
    const failed = call('Edit', { file_path: '/repo/src/app.ts', old_string: 'a', new_string: 'b' });
    const base: ChatMessage[] = [
      say('', failed),
      answer(failed, 'String to replace not found in file.', true),
      ...step(call('Read', { file_path: '/repo/src/app.ts' }), 'const a = 1;'),
    ];
    expect(digest(base).errorsSeen).toEqual([expect.stringMatching(/\[unresolved\]$/)]);
    const retried = [
      ...base,
      ...step(call('Edit', { file_path: '/repo/src/app.ts', old_string: 'c', new_string: 'd' }), 'ok'),
    ];
    expect(digest(retried).errorsSeen).toEqual([
      expect.stringMatching(/^Edit \/repo\/src\/app\.ts — .*\[fixed later\]$/),
    ]);
    // Another tool that changes the file (a whole-file write) resolves it too: the action kind counts, not the tool.
    const rewritten = [
      ...base,
      ...step(call('Write', { file_path: '/repo/src/app.ts', content: 'const b = 1;' }), 'ok'),
    ];
    expect(digest(rewritten).errorsSeen).toEqual([
      expect.stringMatching(/^Edit \/repo\/src\/app\.ts — .*\[fixed later\]$/),
    ]);
  });

  it('a test run: resolved by the same test file passing or the whole suite passing, not by another file', () => {
    // Only the counts tell this run failed: a failure all the same.
    const failing = step(
      bash('python -m pytest tests/test_fields.py::test_timedelta -x'),
      '=== 1 failed, 3 passed in 0.2s ===',
    );
    const other = step(bash('pytest tests/test_schema.py'), '=== 12 passed in 0.3s ===');
    expect(digest([...failing, ...other]).errorsSeen[0]).toMatch(/\[unresolved\]$/);
    const same = step(bash('cd /testbed && pytest tests/test_fields.py -q 2>&1 | tail -3'), '=== 4 passed in 0.2s ===');
    expect(digest([...failing, ...other, ...same]).errorsSeen[0]).toMatch(/\[fixed later\]$/);
    const suite = step(bash('pytest -q'), '=== 200 passed in 9.1s ===');
    expect(digest([...failing, ...other, ...suite]).errorsSeen[0]).toMatch(/\[fixed later\]$/);
    // A failing whole suite is not fixed by one file passing.
    const suiteFails = step(bash('npm test'), 'FAIL src/a.spec.ts\nTests: 1 failed, 9 passed');
    const onePasses = step(bash('npm test -- src/b.spec.ts'), 'Tests: 3 passed');
    expect(digest([...suiteFails, ...onePasses]).errorsSeen[0]).toMatch(/\[unresolved\]$/);
  });

  it('a TypeScript diagnostic: resolved by a later type check of the whole project, whichever command said it', () => {
    const partial = step(
      bash('npx tsc --noEmit --skipLibCheck src/**/*.ts 2>&1 | grep -v "^../tui"'),
      "src/changelog.ts(104,35): error TS1343: The 'import.meta' meta-property is only allowed when the '--module' option is 'es2020'.",
      true,
    );
    const build = step(
      bash('npm run build'),
      "> app@1.0.0 build\n> tsc -p .\n\nsrc/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
      true,
    );
    const lint = step(
      bash('npm run check'),
      '> biome check .\n\nsrc/b.ts:1:1 lint/style/useConst ━━━━━━━━\n\n  × This let is never reassigned.',
      true,
    );
    const status = (lines: readonly string[]) => lines.map((e) => /\[([a-z ]+)\]$/.exec(e)![1]);
    expect(status(digest([...partial, ...build]).errorsSeen)).toEqual(['unresolved', 'unresolved']);
    // The project's own check passing (a package script, or tsc with no file named): both diagnostics are gone.
    for (const check of [
      'cd packages/app && npm run check 2>&1 | tail -3',
      'npx tsc --noEmit -p tsconfig.json',
      'pnpm typecheck',
    ])
      expect(status(digest([...partial, ...build, ...step(bash(check), 'ok')]).errorsSeen)).toEqual([
        'fixed later',
        'fixed later',
      ]);
    // Not a check of a few files, nor a build (it may not check types); nor is a linter's error fixed by a type check.
    for (const other of ['npx tsc --noEmit src/a.ts', 'npm run build'])
      expect(status(digest([...partial, ...step(bash(other), 'ok')]).errorsSeen)).toEqual(['unresolved']);
    expect(status(digest([...lint, ...step(bash('npx tsc --noEmit'), '')]).errorsSeen)).toEqual(['unresolved']);
    // A whole-project check failing otherwise supersedes a diagnostic it no longer shows; a build's does not.
    const other = "src/c.ts(1,1): error TS2304: Cannot find name 'chalk'.";
    expect(status(digest([...partial, ...step(bash('npx tsgo --noEmit'), other, true)]).errorsSeen)).toEqual([
      'superseded',
      'unresolved',
    ]);
    expect(status(digest([...partial, ...step(bash('npm run build'), other, true)]).errorsSeen)).toEqual([
      'unresolved',
      'unresolved',
    ]);
    // Read back from an earlier note, the diagnostic is still resolved by the project's check.
    const note = summarizeDeterministic({ messages: partial, maxChars: 100_000 }).text;
    expect(status(digest(step(bash('npm run typecheck'), 'ok'), note).errorsSeen)).toEqual(['fixed later']);
  });

  it("a checker's error on a path: resolved by the same checker passing on it or a directory above it", () => {
    const status = (lines: readonly string[]) => lines.map((e) => /\[([a-z ]+)\]$/.exec(e)![1]);
    const failed = step(
      bash('ruff check src/app/a.py'),
      'src/app/a.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.',
      true,
    );
    for (const pass of ['ruff check .', 'uv run ruff check src/', 'cd /repo && ruff check src/app', 'ruff check'])
      expect(status(digest([...failed, ...step(bash(pass), 'All checks passed!')]).errorsSeen)).toEqual([
        'fixed later',
      ]);
    // Another checker, or the same one on another path, says nothing of it.
    for (const other of ['ruff check tests/', 'flake8 .', 'ruff check src/app/b.py'])
      expect(status(digest([...failed, ...step(bash(other), 'All checks passed!')]).errorsSeen)).toEqual([
        'unresolved',
      ]);
    // A failing run on a directory above it that no longer shows it supersedes it.
    const wider = step(
      bash('ruff check .'),
      'src/app/c.py:3:1: E402 Module level import not at top of file\nFound 1 error.',
      true,
    );
    expect(status(digest([...failed, ...wider]).errorsSeen)).toEqual(['superseded', 'unresolved']);
    // Read back from an earlier note, still resolved by the wider pass.
    const note = summarizeDeterministic({ messages: failed, maxChars: 100_000 }).text;
    expect(status(digest(step(bash('npx eslint .'), ''), note).errorsSeen)).toEqual(['unresolved']);
    expect(status(digest(step(bash('ruff check .'), 'All checks passed!'), note).errorsSeen)).toEqual(['fixed later']);
  });

  it('superseded: the same run failing otherwise, its whole output no longer showing the error', () => {
    const importError = step(
      bash('pytest tests/test_fields.py'),
      "E   ImportError: cannot import name 'TimeDelta' from 'marshmallow.fields'\n=== 1 error in 0.3s ===",
    );
    const assertion = step(
      bash('pytest tests/test_fields.py'),
      'E   AssertionError: assert 345 == 346\n=== 1 failed, 3 passed in 0.2s ===',
    );
    const errors = digest([...importError, ...assertion]).errorsSeen;
    const status = (lines: readonly string[]) => lines.map((e) => /\[([a-z ]+)\]$/.exec(e)![1]);
    expect(status(errors)).toEqual(['superseded', 'unresolved']);
    // A whole suite failing otherwise supersedes a part's error; another file failing says nothing of it.
    const suite = step(bash('pytest -q'), 'E   KeyError: seconds\n=== 1 failed, 199 passed ===');
    expect(status(digest([...importError, ...suite]).errorsSeen)).toEqual(['superseded', 'unresolved']);
    const otherFile = step(bash('pytest tests/test_schema.py'), 'E   KeyError: seconds\n=== 1 failed ===');
    expect(status(digest([...importError, ...otherFile]).errorsSeen)).toEqual(['unresolved', 'unresolved']);
    // A later success fixes both; the first error again makes it the current one.
    const passes = step(bash('pytest tests/test_fields.py'), '=== 4 passed in 0.2s ===');
    expect(status(digest([...importError, ...assertion, ...passes]).errorsSeen)).toEqual([
      'fixed later',
      'fixed later',
    ]);
    const again = digest([...importError, ...assertion, ...importError]).errorsSeen;
    expect(again[1]).toMatch(/ \(×2\) \[unresolved\]$/);
    expect(status(again)).toEqual(['superseded', 'unresolved']);
    // Read back from an earlier note, a superseded error stays so.
    const note = summarizeDeterministic({ messages: [...importError, ...assertion], maxChars: 100_000 }).text;
    expect(digest([say('Looking at the assertion.')], note).errorsSeen).toEqual(errors);
  });

  it('an exception raised again at another line is the same error, not superseded (its place is no part of it)', () => {
    const raised = (line: number) =>
      step(
        bash('python app.py'),
        `Traceback (most recent call last):\n  File "/repo/app.py", line ${line}, in main\nKeyError: 'seconds'\nexit code: 1`,
      );
    const errors = digest([...raised(12), ...raised(14)]).errorsSeen;
    expect(errors).toEqual(["bash python app.py — KeyError: 'seconds' (at repo/app.py:14) (×2) [unresolved]"]);
  });

  it('not superseded while the rerun still shows the error, or when compaction kept only part of its output', () => {
    const first = step(bash('npm run build'), "src/a.ts(3,1): error TS2304: Cannot find name 'join'.");
    const both = step(
      bash('npm run build'),
      "src/a.ts(3,1): error TS2304: Cannot find name 'join'.\nsrc/b.ts(9,4): error TS2322: Type 'string' is not assignable to type 'number'.",
    );
    expect(digest([...first, ...both]).errorsSeen.every((e) => e.endsWith('[unresolved]'))).toBe(true);
    const long = Array.from({ length: 400 }, (_, i) => `  compiling module ${i}`).join('\n');
    const cut = step(
      bash('npm run build'),
      truncateHeadTail(
        `${long}\nsrc/a.ts(3,1): error TS2304: Cannot find name 'join'.\n${long}\nsrc/b.ts(9,4): error TS2322: Type 'string' is not assignable to type 'number'.`,
        2000,
        2000,
      ),
    );
    expect(cut[1]!.content).toContain('lines truncated');
    expect(digest([...first, ...cut]).errorsSeen.every((e) => e.endsWith('[unresolved]'))).toBe(true);
    // The command itself showing part of its output (a filled `head -N`, a filter): the rest may still show it.
    const twoErrors =
      "src/b.ts(9,4): error TS2322: Type 'string' is not assignable.\nsrc/c.ts(1,1): error TS1005: ';' expected.";
    const headed = (n: number) => step(bash(`npm run build 2>&1 | head -${n}`), twoErrors);
    expect(digest([...first, ...headed(2)]).errorsSeen[0]).toMatch(/TS2304.*\[unresolved\]$/);
    expect(digest([...first, ...headed(20)]).errorsSeen[0]).toMatch(/TS2304.*\[superseded\]$/);
    const grepped = step(bash('npm run build 2>&1 | grep TS2322'), twoErrors.split('\n')[0]!);
    expect(digest([...first, ...grepped]).errorsSeen[0]).toMatch(/TS2304.*\[unresolved\]$/);
    // The same output whole, without the first error: superseded.
    const whole = step(bash('npm run build'), `${long}\nsrc/b.ts(9,4): error TS2322: Type 'string' is not assignable.`);
    expect(digest([...first, ...whole]).errorsSeen[0]).toMatch(/TS2304.*\[superseded\]$/);
  });

  it('resolves an error carried from an earlier summary by a success in the new span', () => {
    const previous = [
      '## Errors seen',
      '- bash edit 287:296 on pkg/handler.py — Your proposed edit has introduced new syntax error(s). [unresolved]',
      '- bash python reproduce.py 2>&1 | tail -5 — AttributeError: no PixelRepresentation [unresolved]',
      '- bash grep -n foo pkg/missing.py — grep: pkg/missing.py: No such file or directory [unresolved]',
    ].join('\n');
    const messages: ChatMessage[] = [
      ...step(bash('open pkg/handler.py'), '[File: pkg/handler.py (300 lines total)]'),
      ...step(bash('edit 287:297\nx\nend_of_edit'), 'File updated.'),
      ...step(bash('python reproduce.py'), 'Script completed successfully, no errors.'),
      ...step(bash('grep -n foo pkg/other.py'), '3: foo()'),
    ];
    expect(digest(messages, previous).errorsSeen).toEqual([
      expect.stringMatching(/^bash edit 287:296 on pkg\/handler\.py — .*\[fixed later\]$/),
      expect.stringMatching(/^bash python reproduce\.py .*\[fixed later\]$/),
      // Another file grepped: not the missing file's target.
      expect.stringMatching(/^bash grep -n foo pkg\/missing\.py — .*\[unresolved\]$/),
    ]);
  });
});

describe('errors: a range edit whose file an earlier note no longer names', () => {
  // The file was opened before an earlier note condensed its span: the failed edit carried from that note has no
  // file, and the agent's next range edit that succeeds is its retry.
  it('is resolved by a later range edit that succeeds; one named on a file stays open after an edit of another', () => {
    const previous = [
      '## Errors seen',
      '- bash edit 287:295 — Your proposed edit has introduced new syntax error(s). (×3) [unresolved]',
      '- bash edit 10:12 on src/a.py — Your proposed edit has introduced new syntax error(s). [unresolved]',
    ].join('\n');
    const messages: ChatMessage[] = [
      ...step(bash('open src/b.py'), '[File: src/b.py (300 lines total)]'),
      ...step(bash('edit 287:296\nx\nend_of_edit'), 'File updated.'),
    ];
    expect(digest(messages, previous).errorsSeen).toEqual([
      expect.stringMatching(/^bash edit 287:295 — .*\(×3\) \[fixed later\]$/),
      expect.stringMatching(/^bash edit 10:12 on src\/a\.py — .*\[unresolved\]$/),
    ]);
  });

  it('stays unresolved when no range edit succeeded later', () => {
    const previous = ['## Errors seen', '- bash edit 287:295 — syntax error(s). [unresolved]'].join('\n');
    const messages: ChatMessage[] = [
      ...step(bash('python reproduce.py'), 'Traceback (most recent call last):\nValueError: x'),
    ];
    expect(digest(messages, previous).errorsSeen).toContainEqual(
      expect.stringMatching(/^bash edit 287:295 — .*\[unresolved\]$/),
    );
  });
});

describe('errors: the line that says what went wrong', () => {
  it("a Python traceback is its exception and message, not 'Traceback (most recent call last):'", () => {
    const traceback = [
      'Traceback (most recent call last):',
      '  File "/repo/reproduce_bug.py", line 17, in <module>',
      '    result = np.array_equal(ds.pixel_array, pixel_array)',
      'AttributeError: Unable to convert the pixel data: PixelRepresentation is missing',
    ].join('\n');
    expect(digest(step(bash('python reproduce_bug.py'), traceback)).errorsSeen).toEqual([
      'bash python reproduce_bug.py — AttributeError: Unable to convert the pixel data: PixelRepresentation is missing (at repo/reproduce_bug.py:17) [unresolved]',
    ]);
  });
});

describe('errors: repeats collapsed into one line with a count', () => {
  it('the same error from retries with other ranges or positions is one line ×N, its text once', () => {
    const messages: ChatMessage[] = [
      ...step(bash('open src/models.py'), '[File: src/models.py]'),
      ...step(bash('edit 10:12\na\nend_of_edit'), 'error: unexpected indent at line 11'),
      ...step(bash('edit 10:13\nb\nend_of_edit'), 'error: unexpected indent at line 12'),
      ...step(bash('edit 11:13\nc\nend_of_edit'), 'error: unexpected indent at line 12'),
      // A different error on another command stays its own line.
      ...step(bash('python run.py'), 'Traceback (most recent call last):\nKeyError: "x"'),
    ];
    const errors = digest(messages).errorsSeen;
    expect(errors).toHaveLength(2);
    const edit = errors.find((e) => e.includes('unexpected indent'))!;
    expect(edit).toMatch(
      /^bash edit 11:13 on src\/models\.py — error: unexpected indent at line 12 \(×3\) \[unresolved\]$/,
    );
    expect(edit.split('unexpected indent')).toHaveLength(2);
  });

  it('a specific error reported word for word by two commands is one line', () => {
    const tsError =
      "../tui/test/chat-simple.ts(28,2): error TS2739: Type '{ description: ChalkInstance; }' is missing the following properties";
    const messages: ChatMessage[] = [
      ...step(bash('npm run check'), `${tsError}\nexit code: 2`),
      ...step(bash('npx tsc --noEmit --skipLibCheck'), `${tsError}\nexit code: 2`),
    ];
    expect(digest(messages).errorsSeen).toEqual([expect.stringContaining('(×2) [unresolved]')]);
  });

  it('property: never more error lines than distinct errors, and the counts add up to the failures', () => {
    const errorArb = fc.constantFrom(
      'error: unexpected indent at line 11',
      'error: unexpected indent at line 42',
      'NameError: name "foo" is not defined',
    );
    const callArb = fc.tuple(fc.constantFrom('a.py', 'b.py'), fc.integer({ min: 1, max: 300 }), fc.option(errorArb));
    fc.assert(
      fc.property(fc.array(callArb, { minLength: 1, maxLength: 12 }), (calls) => {
        const messages = calls.flatMap(([file, line, error]) => [
          ...step(bash(`open ${file}`), `[File: ${file}]`),
          ...step(bash(`edit ${line}:${line + 2}\nx\nend_of_edit`), error ?? 'File updated.'),
        ]);
        const errors = digest(messages).errorsSeen;
        const failures = calls.filter(([, , e]) => e !== null);
        const distinct = new Set(failures.map(([file, , e]) => `${file}|${e!.replace(/\d+$/, '')}`));
        expect(errors.length).toBeLessThanOrEqual(distinct.size);
        const counted = errors.reduce((n, e) => n + Number(/\(×(\d+)\)/.exec(e)?.[1] ?? 1), 0);
        expect(counted).toBe(failures.length);
        // Fixed later exactly when a later edit of the same file succeeded; else superseded exactly when a later edit
        // of it failed otherwise.
        for (const e of errors) {
          const file = /on (\S+) —/.exec(e)![1];
          const gist = (err: string) => err.replace(/\d+$/, '');
          const mine = calls.find(([f, , err]) => f === file && err !== null && e.includes(gist(err)))![2]!;
          const lastFailure = calls
            .map(([f, , err]) => f === file && err !== null && gist(err) === gist(mine))
            .lastIndexOf(true);
          const later = calls.slice(lastFailure + 1).filter(([f]) => f === file);
          const status = later.some(([, , err]) => err === null)
            ? 'fixed later'
            : later.some(([, , err]) => gist(err!) !== gist(mine))
              ? 'superseded'
              : 'unresolved';
          expect(e.endsWith(`[${status}]`)).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('files: whole names only, listings read', () => {
  const traceback = [
    'Traceback (most recent call last):',
    '  File "/pydicom__pydicom/reproduce_bug.py", line 17, in <module>',
    ...Array.from(
      { length: 12 },
      (_, i) => `  File "/pydicom__pydicom/pydicom/dataset.py", line ${1400 + i}, in f${i}`,
    ),
    '  File "/pydicom__pydicom/pydicom/pixel_data_handlers/numpy_handler.py", line 293, in get_pixeldata',
    'AttributeError: Unable to convert the pixel data: PixelRepresentation missing',
  ].join('\n');

  it('property: a cut output never gives a fragment of a path as a file', () => {
    fc.assert(
      fc.property(fc.integer({ min: 120, max: traceback.length - 1 }), (maxChars) => {
        const run = bash('python reproduce_bug.py');
        const cut = truncateHeadTail(traceback, maxChars, 10_000);
        const files = digest([say('', run), answer(run, cut)]).filesTouched.map((f) => f.replace(/ \([^()]*\)$/, ''));
        // Each file is a whole path of the original (not the tail of a longer one whose start was cut away).
        const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
        for (const f of files) expect(traceback).toMatch(new RegExp(`(?<![\\w@./-])${escape(f)}(?![\\w/])`));
      }),
      { numRuns: 100 },
    );
  });

  it('lists a file a tool printed from another directory (`../tui/a.ts`) once, under the name the agent used', () => {
    const edit = call('edit', { path: 'packages/tui/test/chat-simple.ts', oldText: 'a', newText: 'b' });
    const check = bash('cd packages/coding-agent && npm run check');
    const files = digest([
      ...step(edit, 'Edited.'),
      ...step(check, "../tui/test/chat-simple.ts(83,49): error TS2345: Argument of type 'undefined'\nexit code: 2"),
      ...step(bash('ls ../tui/test'), 'chat-simple.ts\neditor.test.ts'),
    ]).filesTouched;
    expect(files).toContain('packages/tui/test/chat-simple.ts (edit)');
    expect(files.some((f) => f.startsWith('../tui/test/chat-simple.ts'))).toBe(false);
  });

  it("gives a relative path the absolute one its call's result names (SWE-agent's `[File: /abs/path (N lines total)]`)", () => {
    const create = bash('create decrypt.py');
    const other = call('Read', { file_path: 'notes/todo.md' });
    const files = digest([
      say('', create),
      answer(
        create,
        '[File: /ctf/BabyEncryption/decrypt.py (1 lines total)]\n1:\n(Open file: /ctf/BabyEncryption/decrypt.py)',
      ),
      // A result that names the file only inside a longer path tells nothing.
      say('', other),
      answer(other, 'see /backup/notes/todo.md.orig'),
    ]).filesTouched;
    expect(files).toEqual(['/ctf/BabyEncryption/decrypt.py (write)', 'notes/todo.md (read)']);
  });

  it('reads the files of an ls -F listing and of SWE-agent find_file / search_dir results', () => {
    const ls = bash('ls -F');
    const find = bash('find_file "numpy_handler.py"');
    const search = bash('search_dir "TimeDelta" src');
    const files = digest([
      say('', ls),
      answer(
        ls,
        'AUTHORS.rst\t    LICENSE\t RELEASING.md\t      performance/    src/\r\nCHANGELOG.rst\t    MANIFEST.in  setup.py*  tox.ini',
      ),
      say('', find),
      answer(
        find,
        'Found 2 matches for "numpy_handler.py" in /repo:\n/repo/pkg/overlays/numpy_handler.py\n/repo/pkg/pixel/numpy_handler.py',
      ),
      say('', search),
      answer(
        search,
        'Found 3 matches for "TimeDelta" in /repo/src:\n/repo/src/marshmallow/fields.py (3 matches)\nEnd of matches',
      ),
    ]).filesTouched;
    expect(files).toEqual(
      expect.arrayContaining([
        'AUTHORS.rst (seen)',
        'RELEASING.md (seen)',
        'CHANGELOG.rst (seen)',
        'setup.py (seen)',
        'tox.ini (seen)',
        '/repo/pkg/overlays/numpy_handler.py (seen)',
        '/repo/pkg/pixel/numpy_handler.py (seen)',
        '/repo/src/marshmallow/fields.py (seen)',
      ]),
    );
  });
});

describe('a small working state uses its room', () => {
  const span = (): ChatMessage[] => [
    ...step(bash('create reproduce_bug.py'), '[File: /repo/reproduce_bug.py (1 lines total)]'),
    ...step(bash('edit 1:1\nimport numpy\nend_of_edit'), 'File updated.'),
    ...step(
      bash('python reproduce_bug.py'),
      'Traceback (most recent call last):\n  File "/repo/reproduce_bug.py", line 17\nAttributeError: Unable to convert the pixel data as the following required elements are missing from the dataset: PixelRepresentation',
    ),
    ...step(
      bash('find_file "numpy_handler.py"'),
      'Found 1 matches for "numpy_handler.py" in /repo:\n/repo/pkg/numpy_handler.py',
    ),
    say(
      'The script reproduced the bug: `PixelRepresentation` is required. Next: find the check in `numpy_handler.py`.',
    ),
  ];

  it('at 400 characters it keeps the file written and the unresolved error (headings of empty sections cost nothing)', () => {
    const r = summarizeDeterministic({ messages: span(), maxChars: 400 });
    expect(r.text.length).toBeLessThanOrEqual(400);
    expect(r.sections.filesTouched).toContain('/repo/reproduce_bug.py (write, edit)');
    expect(r.sections.errorsSeen).toEqual([
      expect.stringMatching(/^bash python reproduce_bug\.py — AttributeError: .*\[unresolved\]$/),
    ]);
  });

  it('cuts an error line rather than drop the error', () => {
    const r = summarizeDeterministic({ messages: span(), maxChars: 250 });
    expect(r.text.length).toBeLessThanOrEqual(250);
    expect(r.sections.errorsSeen).toEqual([
      expect.stringMatching(/^bash python reproduce_bug\.py — AttributeError: .*… \[unresolved\]$/),
    ]);
  });

  it('property: within maxChars, and an error of the span is kept from 300 characters on', () => {
    const stepArb = fc.tuple(
      fc.constantFrom('npm test', 'python x.py', 'make', 'cat a.ts', "sed -n '1,5p' b.py"),
      fc.constantFrom('ok', 'Error: boom went the build of the thing', 'done\nCommand exited with code 2', 'fine'),
      fc.lorem({ maxCount: 12 }),
    );
    fc.assert(
      fc.property(
        fc.array(stepArb, { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 300, max: 1500 }),
        (steps, maxChars) => {
          const messages = steps.flatMap(([command, result, text]) => [say(text), ...step(bash(command), result)]);
          const r = summarizeDeterministic({ messages, maxChars });
          expect(r.text.length).toBeLessThanOrEqual(maxChars);
          // (What `cat` shows is a file's: its `Error:` line is no failure of it; an exit status is.)
          const failed = ([command, result]: readonly string[]) =>
            result!.includes('exited with code') || (result!.startsWith('Error') && !command!.startsWith('cat '));
          if (steps.some(failed)) expect(r.sections.errorsSeen.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('a search that finds nothing', () => {
  it('is "no match", not "ok: Command exited with code 1"', () => {
    const grep = bash('grep -n "invalidate" src/user-message.ts');
    const outcome = callOutcome(toolActivity(grep, {}), answer(grep, 'Command exited with code 1'));
    expect(outcome).toEqual({ ok: true, text: 'no match (exit 1)' });
  });
});
