import type { ChatMessage, ToolCall } from '../model/message';
import {
  callOfStepLine,
  callOutcome,
  describeArguments,
  describeCall,
  errorLineOf,
  failureOf,
  shortenPath,
  tellingErrorLine,
} from './call-outcome';
import { testCountsOf } from './test-report';
import { unwrappedResult } from './harness-frame';
import { prunedPlaceholder } from './pruned-result';
import { toolActivity } from './tool-activity';

const call = (name: string, args: Record<string, unknown>): ToolCall => ({
  id: 'c1',
  name,
  arguments: JSON.stringify(args),
});
const result = (content: string, isError?: boolean): ChatMessage => ({
  role: 'tool',
  content,
  toolCallId: 'c1',
  ...(isError ? { isError } : {}),
});
const outcomeOf = (c: ToolCall, r?: ChatMessage) => callOutcome(toolActivity(c, {}), r);

describe('callOutcome: how a call ended, read from its result', () => {
  it('a web lookup ended with what it found: its first link, or a fetch’s first line', () => {
    const found =
      'Links: [{"title":"Pagination","url":"https://www.prisma.io/docs/orm/prisma-client/queries/pagination"}]';
    expect(outcomeOf(call('WebSearch', { query: 'prisma cursor pagination' }), result(found))).toEqual({
      ok: true,
      text: 'ok: https://www.prisma.io/docs/orm/prisma-client/queries/pagination',
    });
    expect(outcomeOf(call('web_fetch', { url: 'https://x.dev/a' }), result('\n# Cursor-based pagination\n…'))).toEqual({
      ok: true,
      text: 'ok: # Cursor-based pagination',
    });
  });

  it('a commit git made is told by its line (the hash a later call names), only for a git command', () => {
    const hook = '> tsc --noEmit\n\n✅ All pre-commit checks passed!\n';
    expect(
      outcomeOf(
        call('bash', { command: 'git add -A && git commit -m "WP8: Add bash execution"' }),
        result(`${hook}[refactor 94ff0b0] WP8: Add bash execution\n 3 files changed, 120 insertions(+)`),
      ),
    ).toEqual({ ok: true, text: 'ok: [refactor 94ff0b0] WP8: Add bash execution' });
    expect(
      outcomeOf(
        call('bash', { command: 'git commit -qm init' }),
        result('[main (root-commit) 1a2b3c4] init\n 1 file changed'),
      ),
    ).toEqual({ ok: true, text: 'ok: [main (root-commit) 1a2b3c4] init' });
    // A log line of the same shape from another command is no commit.
    const log = result('[worker 1234567] started\nloading the configuration\nlistening');
    expect(outcomeOf(call('bash', { command: 'node worker.js' }), log).text).not.toContain('1234567');
  });

  it('never calls a failure a success: flagged errors, error lines, non-zero exits, failed tests', () => {
    expect(
      outcomeOf(call('bash', { command: 'ls /nope' }), result('ls: /nope: No such file or directory', true)),
    ).toEqual({
      ok: false,
      text: 'error: ls: /nope: No such file or directory',
    });
    expect(
      outcomeOf(call('bash', { command: 'make' }), result('building…\nmake: *** [all] Error 2\nexit code: 2')),
    ).toEqual({ ok: false, text: 'exit 2: make: *** [all] Error 2' });
    const py = outcomeOf(
      call('bash', { command: 'python migrate.py' }),
      result(
        'Traceback (most recent call last):\n  File "migrate.py", line 3\nModuleNotFoundError: No module named yaml',
      ),
    );
    // (Where it was raised, the traceback's innermost frame.)
    expect(py).toEqual({ ok: false, text: 'error: ModuleNotFoundError: No module named yaml (at migrate.py:3)' });
    const jest = outcomeOf(
      call('bash', { command: 'npm test' }),
      result('PASS a.spec.ts\nFAIL b.spec.ts\nTests:       2 failed, 10 passed, 12 total\nTime: 3 s'),
    );
    expect(jest.ok).toBe(false);
    expect(jest.text).toBe('error: FAIL b.spec.ts (tests 2 failed, 10 passed, 12 total)');
  });

  it('reports successes with what they tell: test counts, line counts, a verdict line', () => {
    expect(
      outcomeOf(call('bash', { command: 'pytest' }), result('....\n===== 12 passed, 1 skipped in 0.52s =====')),
    ).toEqual({ ok: true, text: 'tests 12 passed, 1 skipped' });
    expect(outcomeOf(call('read', { path: 'src/a.ts' }), result('a\nb\nc'))).toEqual({ ok: true, text: '3 lines' });
    expect(
      outcomeOf(call('bash', { command: 'npm run build' }), result('> tsc\n\nFound 0 errors. Done in 2.1s')),
    ).toEqual({
      ok: true,
      text: 'ok: Found 0 errors. Done in 2.1s',
    });
    // A code line at the end of an output is no verdict.
    expect(outcomeOf(call('bash', { command: 'cat a.ts' }), result('x\nexport const y = 1;'))).toEqual({
      ok: true,
      text: 'ok',
    });
    // grep exits 1 when nothing matches: not a failure.
    expect(outcomeOf(call('bash', { command: 'grep foo a.ts' }), result('exit code 1')).ok).toBe(true);
    expect(outcomeOf(call('bash', { command: 'npm test' }))).toEqual({ ok: false, text: 'no result' });
  });

  it('a one-line answer is what a command found out (pwd, which, a branch), unless it is its own echo or a file line', () => {
    const ok = (command: string, output: string) => outcomeOf(call('bash', { command }), result(output)).text;
    expect(ok('pwd', '/repo/app')).toBe('ok: /repo/app');
    expect(ok('git branch --show-current', 'feature/login')).toBe('ok: feature/login');
    expect(ok('which python', '/usr/local/bin/python')).toBe('ok: /usr/local/bin/python');
    expect(ok('pip list | grep torch', 'torch                    2.1.0')).toBe('ok: torch 2.1.0');
    // What the command says itself, a harness's note, a bare ok, a line of code found in a file: nothing learnt.
    expect(ok('sed -i \'s/a/b/\' a.ts\necho "Fixed a.ts"', 'Fixed a.ts')).toBe('ok');
    expect(ok('mkdir -p src/core', '(no output)')).toBe('ok');
    expect(ok('touch a', 'OK')).toBe('ok');
    expect(ok('grep "constructor" src/loader.ts | head -5', 'constructor(')).toBe('ok');
  });

  it("what a script found, not its log of the connections and processes it opened and closed (pwntools')", () => {
    const ok = (output: string[]) => outcomeOf(call('bash', { command: 'python solve.py' }), result(output.join('\n')));
    const remote = ['[+] Opening connection to crypto.chal.csaw.io on port 4242: Done'];
    const closed = '[*] Closed connection to crypto.chal.csaw.io port 4242';
    expect(ok([...remote, 'next number: 1364650861', closed]).text).toBe('ok: next number: 1364650861');
    expect(ok([...remote, 'line one of it', 'Found flag: flag{n0t_s0_r4nd0m}', closed]).text).toBe(
      'ok: Found flag: flag{n0t_s0_r4nd0m}',
    );
    const local = ["[+] Starting local process './warmup': pid 123", '[*] Switching to interactive mode'];
    const stopped = "[*] Process './warmup' stopped with exit code 0 (pid 123)";
    expect(ok([...local, 'FLAG{abc_def}', '[*] Got EOF while reading in interactive', stopped]).text).toBe(
      'ok: FLAG{abc_def}',
    );
    // Nothing but its log: nothing found. A process that crashed is news.
    expect(ok([...remote, closed])).toEqual({ ok: true, text: 'ok' });
    const crashed = "[*] Process './warmup' stopped with exit code -11 (SIGSEGV) (pid 123)";
    expect(ok([...local, 'aaaa', crashed]).text).toBe(`ok: ${crashed}`);
  });

  it("git's state: the branch and how many files changed, a log's latest commit", () => {
    const ok = (command: string, output: string) => outcomeOf(call('bash', { command }), result(output)).text;
    const status = [
      'On branch main',
      "Your branch is ahead of 'origin/main' by 2 commits.",
      '',
      'Changes not staged for commit:',
      '  (use "git add <file>..." to update what will be committed)',
      '\tmodified:   src/a.ts',
      '\tmodified:   src/b.ts',
      '',
      'Untracked files:',
      '  (use "git add <file>..." to include in what will be committed)',
      '\tnotes.md',
    ].join('\n');
    expect(ok('git status', status)).toBe('ok: On branch main: 2 modified, 1 untracked');
    expect(ok('cd /repo && git status', 'On branch dev\nnothing to commit, working tree clean')).toBe(
      'ok: On branch dev, nothing to commit',
    );
    expect(ok('git log --oneline -3', '3f2a9c1 fix: email case\n1b2c3d4 feat: users\n9e8f7a6 init')).toBe(
      'ok: 3f2a9c1 fix: email case',
    );
    const full =
      'commit 3f2a9c1aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5\nAuthor: A <a@b.c>\nDate:   today\n\n    fix: email case';
    expect(ok('git log -1', full)).toBe('ok: 3f2a9c1aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5 fix: email case');
  });

  it("reads the verdict from the command's own last line, not from the harness's frame around it", () => {
    // SWE-agent ends every output with the open file, the directory and its prompt.
    const swe = '344\n(Open file: /testbed/reproduce.py)\n(Current directory: /testbed)\nbash-$';
    expect(outcomeOf(call('bash', { command: 'python reproduce.py' }), result(swe))).toEqual({
      ok: true,
      text: 'ok: 344',
    });
    // OpenHands and Codex frame it with the exit status and the time.
    const openHands = 'Built 3 packages\n[The command completed with exit code 0.]';
    expect(outcomeOf(call('execute_bash', { command: 'make' }), result(openHands)).text).toBe('ok: Built 3 packages');
    const codex = 'Exit code: 0\nWall time: 1.2 seconds\nOutput:\nwrote 12 files\n';
    expect(outcomeOf(call('shell', { command: ['bash', '-lc', 'gen'] }), result(codex)).text).toBe(
      'ok: wrote 12 files',
    );
    // The numbered lines of a file an editor command shows are the file, not a verdict.
    const view =
      '[File: /repo/decrypt.py (6 lines total)]\n5:    out += chr(c)\n6:print(msg)\n(Open file: /repo/decrypt.py)\nbash-$';
    expect(outcomeOf(call('bash', { command: 'edit 5:5' }), result(view)).text).toBe('ok');
    // Its file window's footer and cursor lines, and its interactive shell's end-of-command marker, frame too.
    const window =
      '[File: /repo/f.py (1997 lines total)]\n1474:    return x\n(422 more lines below)\nEND_CURSOR moved to 1374';
    expect(outcomeOf(call('bash', { command: 'open f.py 1474' }), result(window)).text).toBe('ok');
    const done = 'Uploaded 2 files\n</body></html>///PROCESS-DONE:0:PROCESS-DONE///';
    expect(outcomeOf(call('bash', { command: 'curl -F f=@a.pl http://x/up' }), result(done)).text).toBe('ok');
    const count = 'wrote 3 rows///PROCESS-DONE:0:PROCESS-DONE///';
    expect(outcomeOf(call('bash', { command: 'python load.py' }), result(count)).text).toBe('ok: wrote 3 rows');
    // Cline's: `Command executed.` and an `Output:` line before what the command printed.
    expect(
      outcomeOf(call('execute_command', { command: 'node -v' }), result('Command executed.\nOutput:\nv20.11.0')).text,
    ).toBe('ok: v20.11.0');
    // Gemini CLI's: the command and directory before, the status lines after, the first line led by `Output: `.
    const gemini = [
      'Command: python3 find.py',
      'Directory: (root)',
      'Output: Total subclasses: 165',
      'Found _wrap_close at index 158',
      '-----',
      'Error: (none)',
      'Exit Code: 0',
      'Signal: 0',
      'Background PIDs: 1793903',
      'Process Group PGID: (none)',
    ];
    const find = call('run_shell_command', { command: 'python3 find.py' });
    expect(outcomeOf(find, result(gemini.join('\n'))).text).toBe('ok: Found _wrap_close at index 158');
    expect(outcomeOf(find, result([...gemini.slice(0, 3), ...gemini.slice(5)].join('\n'))).text).toBe(
      'ok: Total subclasses: 165',
    );
    // Its earlier frame: `Stdout:` and `Stderr:` (each `(empty)` when nothing was printed).
    const older = (out: string, err = '(empty)', code = 0) =>
      result(
        [
          `Command: x`,
          'Directory: (root)',
          `Stdout: ${out}`,
          `Stderr: ${err}`,
          'Error: (none)',
          `Exit Code: ${code}`,
          'Signal: (none)',
          'Background PIDs: (none)',
          'Process Group PGID: 4321',
        ].join('\n'),
      );
    expect(outcomeOf(call('run_shell_command', { command: 'pwd' }), older('/home/u/app')).text).toBe('ok: /home/u/app');
    const traceback = [
      'Traceback (most recent call last):',
      '  File "/home/u/app/app.py", line 3, in <module>',
      '    import yaml',
      "ModuleNotFoundError: No module named 'yaml'",
    ].join('\n');
    // How a test failed is read from what the test runner printed, not from the frame after it.
    const goTest = '--- FAIL: TestAdd (0.00s)\n    add_test.go:8: got 4, want 5\nFAIL\nFAIL\tapp\t0.002s\nFAIL';
    expect(outcomeOf(call('run_shell_command', { command: 'go test ./...' }), older(goTest, '(empty)', 1)).text).toBe(
      'exit 1: FAIL: TestAdd: add_test.go:8: got 4, want 5',
    );
    // A syntax error's place, under the `Stderr: ` lead.
    const syntax = '  File "/home/u/app/app.py", line 3\n    def f(:\n          ^\nSyntaxError: invalid syntax';
    expect(outcomeOf(call('run_shell_command', { command: 'python app.py' }), older('(empty)', syntax, 1)).text).toBe(
      'exit 1: SyntaxError: invalid syntax (at app/app.py:3)',
    );
    // The exception is the traceback's last line, not the frame's `Error: (none)` after it.
    expect(outcomeOf(call('run_shell_command', { command: 'python app.py' }), older('(empty)', traceback, 1))).toEqual({
      ok: false,
      text: "exit 1: ModuleNotFoundError: No module named 'yaml' (at app/app.py:3)",
    });
    // A result that quotes braces is no code line; an assignment or a block's end is.
    const flag = call('bash', { command: 'python3 read_flag.py' });
    expect(outcomeOf(flag, result('[+] Receiving all data: Done (55B)\nFound flag: flag{no_builtins}0')).text).toBe(
      'ok: Found flag: flag{no_builtins}0',
    );
    expect(outcomeOf(flag, result('12 rows\ntotal = 3')).text).toBe('ok');
    expect(outcomeOf(flag, result('done in 3 steps\n}')).text).toBe('ok');
    // A frame only: nothing the command printed tells.
    expect(
      outcomeOf(call('bash', { command: 'cd src' }), result('(Current directory: /testbed/src)\nbash-$')).text,
    ).toBe('ok');
  });

  it('reads a result stored as JSON with its exit status (Codex): its output and a non-zero status', () => {
    const wrapped = (output: string, exitCode: number) =>
      result(JSON.stringify({ output, metadata: { exit_code: exitCode, duration_seconds: 1.2 } }));
    const failed = outcomeOf(
      call('shell', { command: ['bash', '-lc', 'cargo build'] }),
      wrapped('   Compiling app v0.1.0\nerror[E0425]: cannot find value `x` in this scope\n', 101),
    );
    expect(failed.ok).toBe(false);
    expect(failed.text).toContain('cannot find value `x` in this scope');
    // A plain non-zero status, no error line: still a failure, not `ok`.
    expect(outcomeOf(call('shell', { command: 'false' }), wrapped('', 1))).toEqual({ ok: false, text: 'exit 1' });
    expect(outcomeOf(call('shell', { command: 'gen' }), wrapped('wrote 12 files\n', 0))).toEqual({
      ok: true,
      text: 'ok: wrote 12 files',
    });
    // A Python traceback in it: what failed is its last line, as in a plain result.
    const trace = wrapped('Traceback (most recent call last):\n  File "run.py", line 3\nKeyError: \'user_id\'\n', 1);
    const py = call('shell', { command: ['bash', '-lc', 'python run.py'] });
    expect(failureOf(toolActivity(py, {}), trace)).toBe("exit 1: KeyError: 'user_id' (at run.py:3)");
    expect(tellingErrorLine(trace, 'Traceback (most recent call last):')).toBe("KeyError: 'user_id' (at run.py:3)");
    // A tool's failure stored as JSON (Gemini CLI's `{"error": …}`): failed, in its own words.
    const refused = result(
      JSON.stringify({ error: 'Failed to edit, 0 occurrences found for old_string (use std::fs;\n) in src/a.rs.' }),
    );
    const replace = call('replace', { file_path: 'src/a.rs', old_string: 'use std::fs;', new_string: '' });
    expect(outcomeOf(replace, refused)).toEqual({
      ok: false,
      text: 'error: Failed to edit, 0 occurrences found for old_string (use std::fs;',
    });
    expect(outcomeOf(replace, result(JSON.stringify({ output: 'Successfully modified file: src/a.rs' }))).ok).toBe(
      true,
    );
    // Other JSON is a result like any other (an API's answer a command printed, too).
    const api = call('bash', { command: 'curl -s localhost:3000/x' });
    expect(outcomeOf(api, result('{"error": "Not Found", "status": 404}')).ok).toBe(true);
    const other = result('{"output": 3, "files": []}');
    expect(unwrappedResult(other)).toBe(other);
  });

  it("says how a test failed where the runner's verdict does not: the test and its assertion or exception", () => {
    const fails = (command: string, output: string) =>
      failureOf(toolActivity(call('bash', { command }), {}), result(output));
    const jest = [
      'FAIL src/parser/parse.test.ts',
      '  ● parse › handles empty input',
      '',
      "    TypeError: Cannot read properties of undefined (reading 'length')",
      '',
      '      3 | export function parse(s) {',
      'Tests:       1 failed, 12 passed, 13 total',
    ].join('\n');
    expect(fails('npx jest', jest)).toBe(
      "error: FAIL src/parser/parse.test.ts: parse › handles empty input: TypeError: Cannot read properties of undefined (reading 'length') (tests 1 failed, 12 passed, 13 total)",
    );
    const go = [
      '--- FAIL: TestAdd (0.00s)',
      '    add_test.go:9: Add(1, 2) = 4; want 3',
      'FAIL',
      'exit status 1',
      'FAIL\texample.com/m\t0.002s',
    ].join('\n');
    expect(fails('go test ./...', go)).toBe('exit 1: FAIL: TestAdd: add_test.go:9: Add(1, 2) = 4; want 3');
    const cargo = [
      'running 1 test',
      'test tests::it_works ... FAILED',
      'failures:',
      '---- tests::it_works stdout ----',
      "thread 'tests::it_works' panicked at src/lib.rs:10:5:",
      'assertion `left == right` failed',
      'test result: FAILED. 0 passed; 1 failed; 0 ignored',
      'error: test failed, to rerun pass `--lib`',
    ].join('\n');
    // (The panic is an error line itself: it, with its message, and the counts.)
    expect(fails('cargo test', cargo)).toBe(
      "error: thread 'tests::it_works' panicked at src/lib.rs:10:5: assertion `left == right` failed (tests 0 passed; 1 failed; 0 ignored)",
    );
    const pytest = [
      '    def test_b():',
      '>       assert 1 == 2',
      'E       assert 1 == 2',
      'FAILED tests/test_a.py::test_b',
    ];
    expect(fails('pytest', pytest.join('\n'))).toBe('error: FAILED tests/test_a.py::test_b: assert 1 == 2');
    // A verdict that says how already, or a report without the detail, is left as it is.
    expect(fails('pytest', 'FAILED tests/test_a.py::test_b - assert 1 == 2\n1 failed')).toBe(
      'error: FAILED tests/test_a.py::test_b - assert 1 == 2',
    );
    expect(fails('npx jest', 'PASS a.spec.ts\nFAIL b.spec.ts\nTests: 1 failed, 3 passed')).toBe(
      'error: FAIL b.spec.ts (tests 1 failed, 3 passed)',
    );
    // A suite that did not run: why, from the line under jest's heading.
    const notRun = [
      'FAIL src/a.test.ts',
      '  ● Test suite failed to run',
      '',
      "    Cannot find module './missing' from 'src/a.test.ts'",
      'Test Suites: 1 failed, 1 total',
      'Tests:       0 total',
    ];
    expect(fails('npx jest', notRun.join('\n'))).toBe(
      "error: FAIL src/a.test.ts: Test suite failed to run: Cannot find module './missing' from 'src/a.test.ts' (tests 0 total)",
    );
  });

  it("says which test failed and how when pytest's report has no short summary (`-q`, before pytest 6, `-rN`)", () => {
    const report = [
      'F.                                                                       [100%]',
      '=================================== FAILURES ===================================',
      '___________________________________ test_add ___________________________________',
      '',
      '    def test_add():',
      '>       assert add(2, 2) == 5',
      'E       assert 4 == 5',
      'E        +  where 4 = add(2, 2)',
      '',
      'tests/test_a.py:4: AssertionError',
    ];
    const run = call('bash', { command: 'python -m pytest -q tests/test_a.py' });
    // Its counts alone tell that it failed: the test and its assertion follow them.
    const bare = outcomeOf(run, result([...report, '1 failed, 1 passed in 0.12s'].join('\n')));
    expect(bare).toEqual({ ok: false, text: 'tests 1 failed, 1 passed: test_add: assert 4 == 5' });
    const framed = [...report, '========================= 1 failed, 1 passed in 0.12s =========================='];
    expect(outcomeOf(run, result(framed.join('\n'))).text).toBe('tests 1 failed, 1 passed: test_add: assert 4 == 5');
    // Flagged with its exit status (pi): the status, then the test and how, not the counts line as the error.
    const flagged = result(
      [...report, '1 failed, 1 passed in 0.12s', '', 'Command exited with code 1'].join('\n'),
      true,
    );
    expect(outcomeOf(run, flagged).text).toBe('exit 1: test_add: assert 4 == 5 (tests 1 failed, 1 passed)');
    // Read back from a note's step line, it says the same again.
    const back = callOfStepLine(`- bash \`python -m pytest -q tests/test_a.py\` → ${bare.text}`, 's1')!;
    expect(callOutcome(toolActivity(back.call, {}), back.result)).toEqual(bare);
    // A file it could not collect: the file, then why.
    const collect = [
      '______________________ ERROR collecting tests/test_a.py _______________________',
      "ImportError while importing test module '/w/tests/test_a.py'.",
      'tests/test_a.py:1: in <module>',
      '    from app import add',
      "E   ModuleNotFoundError: No module named 'app'",
      '=========================== short test summary info ============================',
      'ERROR tests/test_a.py',
      '!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!',
      '=============================== 1 error in 0.05s ===============================',
    ];
    expect(outcomeOf(call('bash', { command: 'pytest' }), result(collect.join('\n'))).text).toBe(
      "error: ERROR tests/test_a.py: ModuleNotFoundError: No module named 'app' (tests 1 error)",
    );
  });

  it.each([
    [
      'mypy src',
      'src/a.py:3: error: Incompatible types in assignment\nFound 1 error in 1 file (checked 3 source files)',
      'error: src/a.py:3: error: Incompatible types in assignment',
    ],
    [
      './gradlew build',
      '> Task :compileJava FAILED\n/repo/A.java:3: error: cannot find symbol\n1 error\nFAILURE: Build failed with an exception.\nBUILD FAILED in 3s',
      'error: /repo/A.java:3: error: cannot find symbol',
    ],
    [
      'mvn -q compile',
      '[ERROR] /repo/A.java:[3,5] cannot find symbol\n[ERROR] -> [Help 1]',
      'error: [ERROR] /repo/A.java:[3,5] cannot find symbol',
    ],
    [
      'git merge feature',
      'Auto-merging src/a.ts\nCONFLICT (content): Merge conflict in src/a.ts\nAutomatic merge failed; fix conflicts and then commit the result.',
      'error: CONFLICT (content): Merge conflict in src/a.ts',
    ],
    [
      'curl -s localhost:3000/health',
      "curl: (7) Failed to connect to localhost port 3000: Couldn't connect to server",
      "error: curl: (7) Failed to connect to localhost port 3000: Couldn't connect to server",
    ],
    ['python train.py', 'epoch 1 loss 0.5\nepoch 2 loss 0.4\nKilled', 'error: Killed'],
    ['go build ./...', '# example.com/m\n./main.go:5:2: undefined: foo', 'error: ./main.go:5:2: undefined: foo'],
    [
      'npx vitest run',
      ' ❯ test/sum.test.ts (2 tests | 1 failed) 3ms\n   × sum > adds\n     → expected 5 to be 4\n      Tests  1 failed | 1 passed (2)',
      'error: × sum > adds: expected 5 to be 4 (tests 1 failed | 1 passed)',
    ],
  ])('reads a failure without an exit status: %s', (command, output, text) => {
    expect(outcomeOf(call('bash', { command }), result(output))).toEqual({ ok: false, text });
  });

  // Each runner's report of one failed test of two, as it prints it (no exit status: SWE-agent's shell shows none).
  const RUNNERS: [string, string, string[], string][] = [
    [
      'PHPUnit',
      'vendor/bin/phpunit',
      [
        'F.   2 / 2 (100%)',
        'There was 1 failure:',
        '1) Tests\\CalcTest::testAdd',
        'Failed asserting that 4 matches expected 5.',
        '/w/tests/CalcTest.php:9',
        'FAILURES!',
        'Tests: 2, Assertions: 2, Failures: 1.',
      ],
      'error: Failed asserting that 4 matches expected 5. (tests 2 tests, 2 assertions, 1 failures)',
    ],
    [
      'ExUnit',
      'mix test',
      [
        '  1) test adds (CalcTest)',
        '     test/calc_test.exs:5',
        '     Assertion with == failed',
        '     code:  assert Calc.add(2, 2) == 5',
        '     left:  4',
        '     right: 5',
        'Finished in 0.02 seconds',
        '3 tests, 1 failure',
      ],
      'tests 3 tests, 1 failure: test adds (CalcTest): Assertion with == failed (code: assert Calc.add(2, 2) == 5; left: 4; right: 5)',
    ],
    [
      'unittest (an error, not a failure: Django)',
      'python manage.py test polls',
      [
        'E',
        '======',
        'ERROR: test_future (polls.tests.QuestionModelTests.test_future)',
        '------',
        'Traceback (most recent call last):',
        '  File "/w/polls/models.py", line 9, in was_published_recently',
        '    return self.pub_date >= timezone.now() - datetime.timedelta(days=1)',
        "NameError: name 'datetime' is not defined",
        'Ran 1 test in 0.002s',
        'FAILED (errors=1)',
      ],
      "error: ERROR: test_future (polls.tests.QuestionModelTests.test_future): NameError: name 'datetime' is not defined (at polls/models.py:9)",
    ],
    [
      'mocha',
      'npx mocha',
      [
        '  sum',
        '    1) adds',
        '  1 passing (5ms)',
        '  1 failing',
        '  1) sum',
        '       adds:',
        '      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
        '4 !== 5',
        '      at Context.<anonymous> (test/sum.test.js:6:12)',
      ],
      'tests 1 passing 1 failing: AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 4 !== 5',
    ],
    [
      'node:test',
      'node --test',
      [
        '✖ adds (1.2ms)',
        '  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
        '  4 !== 5',
        'ℹ tests 2',
        'ℹ pass 1',
        'ℹ fail 1',
      ],
      'error: ✖ adds (1.2ms): AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 4 !== 5 (tests 1 failed, 1 passed)',
    ],
    [
      'go test -v',
      'go test -v ./...',
      [
        '=== RUN   TestAdd',
        '    add_test.go:8: Add(2, 2) = 4; want 5',
        '--- FAIL: TestAdd (0.00s)',
        '=== RUN   TestSub',
        '--- PASS: TestSub (0.00s)',
        'FAIL',
        'FAIL\texample.com/calc\t0.002s',
      ],
      'error: FAIL: TestAdd: add_test.go:8: Add(2, 2) = 4; want 5',
    ],
    [
      'Maven Surefire',
      'mvn test',
      [
        '[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.02 s <<< FAILURE! -- in com.example.CalcTest',
        '[ERROR] com.example.CalcTest.testAdd -- Time elapsed: 0.005 s <<< FAILURE!',
        'org.opentest4j.AssertionFailedError: expected: <5> but was: <4>',
        '[INFO] Results:',
        '[ERROR] Failures: ',
        '[ERROR]   CalcTest.testAdd:10 expected: <5> but was: <4>',
        '[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0',
        '[INFO] BUILD FAILURE',
      ],
      'error: FAILURE in com.example.CalcTest: CalcTest.testAdd:10 expected: <5> but was: <4> (tests 2 tests, 1 failures, 0 errors, 0 skipped)',
    ],
    [
      'Gradle',
      './gradlew test',
      [
        '> Task :test FAILED',
        'CalcTest > testAdd() FAILED',
        '    org.opentest4j.AssertionFailedError at CalcTest.java:10',
        '2 tests completed, 1 failed',
        'FAILURE: Build failed with an exception.',
        'BUILD FAILED in 2s',
      ],
      'error: CalcTest > testAdd() FAILED: org.opentest4j.AssertionFailedError at CalcTest.java:10 (tests 2 tests completed, 1 failed)',
    ],
    [
      'dotnet test',
      'dotnet test',
      [
        '  Failed CalcTests.AddsTwoNumbers [5 ms]',
        '  Error Message:',
        '   Assert.Equal() Failure: Values differ',
        'Failed!  - Failed:     1, Passed:     1, Skipped:     0, Total:     2, Duration: 5 ms - Calc.Tests.dll (net8.0)',
      ],
      'error: Failed CalcTests.AddsTwoNumbers [5 ms]: Assert.Equal() Failure: Values differ (tests 1 failed, 1 passed, 0 skipped)',
    ],
  ];
  it.each(RUNNERS)('%s: a failed test is a failure, told by the test and how it failed', (_, command, output, text) => {
    const run = call('bash', { command });
    expect(outcomeOf(run, result(output.join('\n')))).toEqual({ ok: false, text });
    // Read back from a note's step line, it is the same failure.
    const back = callOfStepLine(`- bash \`${command}\` → ${text}`, 's1')!;
    expect(callOutcome(toolActivity(back.call, {}), back.result).ok).toBe(false);
    // Flagged with its exit status (pi), the status and the same test.
    const flagged = outcomeOf(run, result([...output, '', 'Command exited with code 1'].join('\n'), true));
    expect(flagged.ok).toBe(false);
    expect(flagged.text).toMatch(/^exit 1: /);
    // (What it says of the test, without the verdict a harness's flag may not make the error line.)
    const how = text.replace(/^(?:error: |tests [^:]*: )(?:FAIL: )?/, '').replace(/ \(tests .*\)$/, '');
    expect(flagged.text).toContain(how);
  });

  it('bun, CTest and XCTest failures are failures with their counts; what a checker or formatter found is a failure', () => {
    const ran = (command: string, output: string[]) => outcomeOf(call('bash', { command }), result(output.join('\n')));
    const bun = [
      'src/sum.test.ts:',
      '✓ sum > subtracts [0.10ms]',
      '2 | test("adds", () => {',
      '3 |   expect(1 + 1).toBe(3);',
      '                    ^',
      'error: expect(received).toBe(expected)',
      '',
      'Expected: 3',
      'Received: 2',
      '✗ sum > adds [0.30ms]',
      '',
      ' 1 pass',
      ' 1 fail',
      'Ran 2 tests across 1 files. [15.00ms]',
    ];
    expect(ran('bun test', bun)).toEqual({
      ok: false,
      text: 'tests 1 failed, 1 passed: error: expect(received).toBe(expected) (Expected: 3; Received: 2)',
    });
    const ctest = [
      '1/2 Test #1: calc_test ....***Failed    0.01 sec',
      '2/2 Test #2: other_test ...   Passed    0.00 sec',
      '',
      '50% tests passed, 1 tests failed out of 2',
    ];
    expect(ran('ctest --output-on-failure', ctest).ok).toBe(false);
    expect(ran('ctest', ['100% tests passed, 0 tests failed out of 2'])).toEqual({
      ok: true,
      text: 'tests 0 failed, 2 passed',
    });
    expect(
      ran('swift test', [
        "Test Case '-[CalcTests testAdd]' failed (0.001 seconds).",
        'Executed 2 tests, with 1 failure (0 unexpected) in 0.002 (0.003) seconds',
      ]).ok,
    ).toBe(false);
    // Checkers and formatters, with no exit status shown.
    expect(
      ran('pyright', [
        '/w/src/a.py',
        '  /w/src/a.py:3:12 - error: Type "str" is not assignable to return type "int"',
        '1 error, 0 warnings, 0 informations',
      ]).text,
    ).toBe('error: /w/src/a.py:3:12 - error: Type "str" is not assignable to return type "int"');
    expect(ran('ruff check .', ['src/a.py:1:8: F401 [*] `os` imported but unused', 'Found 1 error.']).text).toBe(
      'error: src/a.py:1:8: F401 [*] `os` imported but unused',
    );
    expect(
      ran('black --check .', ['would reformat /w/src/a.py', '', 'Oh no! 💥 💔 💥', '1 file would be reformatted.'])
        .text,
    ).toBe('error: would reformat /w/src/a.py');
    expect(
      ran('npx prettier --check .', [
        'Checking formatting...',
        '[warn] src/a.ts',
        '[warn] Code style issues found in the above file. Run Prettier with --write to fix.',
      ]).ok,
    ).toBe(false);
  });

  it("a test run whose counts say all passed succeeded, whatever its tests logged; a package manager's warning is no failure", () => {
    const ran = (command: string, output: string[]) => outcomeOf(call('bash', { command }), result(output.join('\n')));
    const logged = [
      'PASS src/api.test.ts',
      '  ● Console',
      '    console.error',
      '      Error: network down',
      '          at Object.<anonymous> (src/api.test.ts:10:11)',
    ];
    expect(ran('npx jest', [...logged, 'Test Suites: 1 passed, 1 total', 'Tests:       4 passed, 4 total'])).toEqual({
      ok: true,
      text: 'tests 4 passed, 4 total',
    });
    // A suite that failed to run is a failure, though every test that ran passed.
    expect(
      ran('npx jest', [...logged, 'Test Suites: 1 failed, 1 passed, 2 total', 'Tests:       4 passed, 4 total']).ok,
    ).toBe(false);
    const pip = [
      'Obtaining file:///w',
      "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.",
      'torch 2.0.0 requires sympy, which is not installed.',
      'Successfully installed app-0.1.0',
    ];
    expect(ran('pip install -e .', pip)).toEqual({ ok: true, text: 'ok: Successfully installed app-0.1.0' });
  });

  it('what a command that only shows things printed is data, not its failure; it fails in its own name', () => {
    const shown = (command: string, output: string[]) =>
      outcomeOf(call('bash', { command }), result(output.join('\n')));
    const log = [
      '2024-01-01 start',
      'Traceback (most recent call last):',
      '  File "w.py", line 3',
      'ValueError: bad',
      '2024-01-01 restarted',
    ];
    for (const command of [
      'cat logs/worker.log',
      'tail -5 logs/worker.log | grep -v DEBUG',
      'cd /w && head -20 logs/worker.log',
    ])
      expect(shown(command, log)).toEqual({ ok: true, text: 'ok: shows ValueError: bad' });
    // A service's log shown by its viewer is data too; the viewer's own refusal is its failure.
    for (const command of [
      'docker logs web --tail 50',
      'docker compose logs api',
      'kubectl logs deploy/api',
      'journalctl -u app',
    ])
      expect([command, shown(command, log)]).toEqual([command, { ok: true, text: 'ok: shows ValueError: bad' }]);
    expect(shown('docker logs web', ['Error response from daemon: No such container: web']).ok).toBe(false);
    expect(
      shown('kubectl logs deploy/api', ['Error from server (NotFound): deployments.apps "api" not found']).ok,
    ).toBe(false);
    expect(shown('docker run app', ['Traceback (most recent call last):', 'ValueError: bad']).ok).toBe(false);
    // Not an error a source file or a document quotes.
    expect(shown('head -5 README.md', ['# App', 'Error: listen EADDRINUSE means the port is taken.']).text).toBe('ok');
    // What it showed holds no error: its last line, as any command's.
    expect(shown('tail -2 logs/worker.log', ['2024-01-01 start', 'done: 3 jobs']).text).toBe('ok: done: 3 jobs');
    expect(
      shown('grep -rn "syntax error" src/', ['src/parse.py:12:        raise SyntaxError("syntax error at line")']).ok,
    ).toBe(true);
    expect(
      shown('git log --oneline -3', ['a1b2c3d Fix "No such file or directory" on Windows', '0a1b2c3 Init']).ok,
    ).toBe(true);
    expect(shown('echo "FAIL: expected"', ['FAIL: expected']).ok).toBe(true);
    // Its own complaint, a shell's, git's: a failure.
    expect(shown('cat src/nope.ts', ['cat: src/nope.ts: No such file or directory']).text).toBe(
      'error: cat: src/nope.ts: No such file or directory',
    );
    expect(shown('ls build && cat build/log', ["ls: cannot access 'build': No such file or directory"]).ok).toBe(false);
    expect(shown('git show HEAD~9', ["fatal: ambiguous argument 'HEAD~9': unknown revision"]).ok).toBe(false);
    // A command that also runs something is read as before: its traceback is its own.
    expect(shown('cat input.txt | python parse.py', log).ok).toBe(false);
    // A status or a harness's flag says it failed, whatever it printed.
    expect(shown('cat logs/worker.log', [...log, 'Command exited with code 1']).ok).toBe(false);
    // A count of none is no failure.
    expect(shown('python check.py', ['checked 10 files', 'errors: 0', 'FAILED: 0']).ok).toBe(true);
  });

  it("a CI run's report or log is data: it shows the failed step; a log's exit line is no status of the viewer", () => {
    const shown = (command: string, output: string[]) =>
      outcomeOf(call('bash', { command }), result(output.join('\n')));
    const run = [
      'X main CI · 123',
      'Triggered via push about 2 minutes ago',
      'JOBS',
      'X test in 1m2s (ID 456)',
      '  ✓ Set up job',
      '  X Run npm test',
      'ANNOTATIONS',
      'X Process completed with exit code 1.',
      'test: .github#12',
    ];
    // (Was `exit 1: test: .github#12`: the annotation read as the command's own status.)
    expect(shown('gh run view 123', run)).toEqual({ ok: true, text: 'ok: shows failed: Run npm test' });
    expect(
      shown('gh run view 123 --log-failed', [
        'test\tRun npm test\t2024-01-01T10:00:00.10Z FAIL src/a.test.ts',
        'test\tRun npm test\t2024-01-01T10:00:01.20Z ##[error]Process completed with exit code 1.',
      ]),
    ).toEqual({ ok: true, text: 'ok: shows FAIL src/a.test.ts' });
    expect(
      shown('gh pr checks 42', [
        'Some checks were not successful',
        'X  test  1m2s  https://github.com/o/r/actions/runs/1/job/2',
        '✓  lint  20s   https://github.com/o/r/actions/runs/1/job/3',
      ]).text,
    ).toBe('ok: shows failed: test 1m2s https://github.com/o/r/actions/runs/1/job/2');
    expect(shown('gh run view 124', ['✓ main CI · 124', 'JOBS', '✓ test in 1m2s (ID 457)']).ok).toBe(true);
    // The harness's status line: the viewer failed (`--exit-status`), and the failed step says why.
    expect(shown('gh run view 123 --exit-status', [...run, 'Command exited with code 1'])).toEqual({
      ok: false,
      text: 'exit 1: failed: Run npm test',
    });
    // A service's exit in a log is what the log shows.
    expect(shown('docker logs web', ['started', 'worker exited with code 1'])).toEqual({
      ok: true,
      text: 'ok: shows worker exited with code 1',
    });
    expect(shown('docker logs web', ['Error: boom', 'worker exited with code 1']).text).toBe('ok: shows Error: boom');
  });

  it('a page a command fetched says its title and what it offers; a request that sent something, what it answered', () => {
    const fetched = (command: string, output: string[]) =>
      outcomeOf(call('bash', { command }), result(output.join('\n')));
    const index = [
      '<html><head><title>Perl Examples</title></head><body><ul>',
      '<li><a href="/cgi-bin/hello.pl">Hello World</a></li>',
      '<li><a href="/cgi-bin/forms.pl">Forms</a></li>',
      '<li><a href="#top">Top</a></li>',
      '</ul></body></html>',
    ];
    // (Was `ok`: an HTML page's last line is no verdict.)
    expect(fetched('curl -s http://localhost:8000/', index).text).toBe(
      'ok: page "Perl Examples"; links /cgi-bin/hello.pl, /cgi-bin/forms.pl',
    );
    const form = (below: string) => [
      '<!DOCTYPE html>',
      '<html><head><title>Sign in</title></head><body><h1>Sign in</h1>',
      '<form method="post" action="/login">',
      'User: <input type="text" name="user" /><br />',
      '<input type="password" name="pass" /><input type="submit" value="Go" />',
      '</form><hr />',
      `${below}</body></html>`,
    ];
    expect(fetched('wget -qO- http://localhost:8000/login', form('')).text).toBe(
      'ok: page "Sign in"; form POST /login (user, pass)',
    );
    // What the page answered the form posted, below the form.
    expect(
      fetched(
        'curl -X POST -d "user=a&pass=b" http://localhost:8000/login',
        form('Welcome, <b>a</b>.<br />Your flag: FLAG{x}'),
      ).text,
    ).toBe('ok: page "Sign in": Welcome, a . Your flag: FLAG{x}');
    // Output that is no page (JSON, a word that names a tag) reads as before.
    expect(fetched('curl -s localhost:8000/health', ['{"status":"ok"}']).text).toBe('ok: {"status":"ok"}');
    expect(fetched('curl -s localhost:8000/docs', ['Use <a> for links', 'done']).text).not.toMatch(/page/);
  });

  it("more tools' failures, shown with no exit status, are failures in their own words", () => {
    const ran = (command: string, output: string[]) => outcomeOf(call('bash', { command }), result(output.join('\n')));
    expect(
      ran('cargo run', [
        "thread 'main' panicked at src/main.rs:4:5:",
        'index out of bounds: the len is 3 but the index is 5',
        'note: run with `RUST_BACKTRACE=1`',
      ]).text,
    ).toBe("error: thread 'main' panicked at src/main.rs:4:5: index out of bounds: the len is 3 but the index is 5");
    expect(
      ran('ruby app.rb', ["app.rb:3:in `<main>': undefined local variable or method `x' for main:Object (NameError)"])
        .ok,
    ).toBe(false);
    expect(ran('make test', ["make: *** No rule to make target 'test'.  Stop."]).text).toBe(
      "error: make: *** No rule to make target 'test'. Stop.",
    );
    expect(
      ran('wget https://x.dev/f.tgz', [
        'HTTP request sent, awaiting response... 404 Not Found',
        '2024-01-01 ERROR 404: Not Found.',
      ]).ok,
    ).toBe(false);
    expect(
      ran('aws s3 ls s3://b', [
        'An error occurred (AccessDenied) when calling the ListObjectsV2 operation: Access Denied',
      ]).ok,
    ).toBe(false);
    expect(
      ran('poetry install', [
        "Because app depends on requests (^9.0) which doesn't match any versions, version solving failed.",
      ]).ok,
    ).toBe(false);
    const rejected = [
      'node:internal/process/promises:289',
      '            triggerUncaughtException(err, true /* fromPromise */);',
      '            ^',
      '',
      '[UnhandledPromiseRejection: This error originated either by throwing inside of an async function.] {',
      "  code: 'ERR_UNHANDLED_REJECTION'",
      '}',
    ];
    expect(ran('node app.js', rejected).text).toMatch(/^error: \[UnhandledPromiseRejection: /);
    // Windows: PowerShell's error records (5's and 7's), cmd's; an HTTP header is no cmdlet's error.
    const record = [
      "Get-Content : Cannot find path 'C:\\w\\nope.txt' because it does not exist.",
      'At line:1 char:1',
      '    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.GetContentCommand',
    ];
    expect(ran('Get-Content nope.txt', record).text).toBe(`error: ${record[0]}`);
    expect(
      ran('pyhton app.py', [
        "pyhton: The term 'pyhton' is not recognized as a name of a cmdlet, function, script file, or executable program.",
      ]).ok,
    ).toBe(false);
    expect(
      ran('pyhton app.py', [
        "'pyhton' is not recognized as an internal or external command,",
        'operable program or batch file.',
      ]).ok,
    ).toBe(false);
    expect(
      ran('curl -si localhost:3000/health', [
        'HTTP/1.1 200 OK',
        'Content-Type: application/json',
        'Set-Cookie: sid=1',
        '',
        '{"status":"ok"}',
      ]).ok,
    ).toBe(true);
    // make's closing line is no more than a wrapper: the compiler's line before it is what failed.
    expect(ran('make', ["main.c:5:3: error: 'y' undeclared", 'make: *** [Makefile:4: main.o] Error 1']).text).toBe(
      "error: main.c:5:3: error: 'y' undeclared",
    );
  });

  it("services', remotes' and interpreters' failures, shown with no exit status, are failures in their own words", () => {
    const ran = (command: string, output: string[]) => outcomeOf(call('bash', { command }), result(output.join('\n')));
    const said: [string, string[], string][] = [
      ['apt-get install -y libfoo', ['Reading package lists...', 'E: Unable to locate package libfoo'], 'E: Unable'],
      ['jq .a.b data.json', ['jq: error (at data.json:0): Cannot index number with "b"'], 'jq: error'],
      ['jq . bad.json', ['jq: parse error: Invalid numeric literal at line 1, column 4'], 'jq: parse error'],
      ['docker run app', ['docker: Error response from daemon: pull access denied for app.'], 'docker: Error'],
      [
        'gh repo view me/x',
        ["GraphQL: Could not resolve to a Repository with the name 'me/x'. (repository)"],
        'GraphQL',
      ],
      ['gh pr create --fill', ['pull request create failed: GraphQL: No commits between main and b'], 'pull request'],
      ['gh api repos/me/x', ['gh: Not Found (HTTP 404)'], 'gh: Not Found'],
      ['ssh deploy@10.0.0.5 uptime', ['ssh: connect to host 10.0.0.5 port 22: Connection refused'], 'ssh: connect'],
      ['sqlite3 app.db "select * from users"', ['Runtime error near line 1: no such table: users (1)'], 'Runtime'],
      ['redis-cli HGET k', ["(error) ERR wrong number of arguments for 'hget' command"], '(error) ERR'],
      [
        'mix run',
        ['** (ArithmeticError) bad argument in arithmetic expression', '    lib/app.ex:5: App.run/0'],
        '** (',
      ],
      ['lua main.lua', ["lua: main.lua:3: attempt to call a nil value (global 'foo')", 'stack traceback:'], 'lua:'],
      [
        'perl app.pl',
        ["Can't locate JSON.pm in @INC (you may need to install the JSON module) at app.pl line 2."],
        "Can't",
      ],
      ['dotnet run', ['Unhandled exception. System.NullReferenceException: Object reference not set.'], 'Unhandled'],
      ['python -m app', ['/usr/bin/python: No module named app'], '/usr/bin/python'],
      ['systemctl start app', ['Job for app.service failed because the control process exited.'], 'Job for'],
      ['sh -c foo', ['sh: 1: foo: not found'], 'sh: 1'],
    ];
    for (const [command, output, start] of said) {
      const outcome = ran(command, output);
      expect([command, outcome.ok, outcome.text.startsWith(`error: ${start}`)]).toEqual([command, false, true]);
    }
    // Dart's exception is said on the line under its head.
    expect(ran('dart run', ['Unhandled exception:', 'RangeError (index): Invalid value: 5', '#0  List.[]']).text).toBe(
      'error: Unhandled exception: RangeError (index): Invalid value: 5',
    );
    // A log's lines at a level below a warning name files and refusals without failing.
    expect(
      ran('python app.py', [
        'INFO: main.py:45: server started',
        'DEBUG: db.py:12: Connection refused, retrying',
        'ready',
      ]).ok,
    ).toBe(true);
  });

  it('a run of these runners that passed is a success with its counts', () => {
    const passed = (command: string, output: string) => outcomeOf(call('bash', { command }), result(output));
    expect(passed('vendor/bin/phpunit', '..   2 / 2 (100%)\n\nOK (2 tests, 2 assertions)')).toEqual({
      ok: true,
      text: 'tests 2 tests, 2 assertions',
    });
    expect(passed('mix test', 'Finished in 0.02 seconds\n1 doctest, 3 tests, 0 failures, 1 excluded').text).toBe(
      'tests 1 doctest, 3 tests, 0 failures, 1 excluded',
    );
    expect(passed('mvn test', '[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS')).toEqual(
      {
        ok: true,
        text: 'tests 2 tests, 0 failures, 0 errors, 0 skipped',
      },
    );
    expect(passed('bundle exec rspec', '...\n\nFinished in 0.01 seconds\n3 examples, 0 failures').ok).toBe(true);
    expect(passed('node --test', 'ℹ tests 2\nℹ pass 2\nℹ fail 0').text).toBe('tests 0 failed, 2 passed');
  });

  it("a build's closing verdict is not what failed: the coded error line before it is (MSBuild, in Gemini CLI's frame)", () => {
    const build = (error: string) =>
      result(
        [
          'Command: dotnet build',
          'Directory: (root)',
          'Output: Restore complete (0.6s)',
          '  A.Core succeeded (1.2s) → A.Core\\bin\\Debug\\net8.0\\A.Core.dll',
          '  A.App failed with 1 error(s) (0.9s)',
          `    C:\\Repos\\A\\A.App\\Program.cs(12,9): ${error}`,
          '',
          'Build failed with 1 error(s) in 3.1s',
          'Error: (none)',
          'Exit Code: 1',
          'Signal: (none)',
        ].join('\n'),
      );
    const dotnet = call('run_shell_command', { command: 'dotnet build' });
    expect(outcomeOf(dotnet, build("error CS1061: 'IServiceCollection' has no 'AddSingleton'"))).toEqual({
      ok: false,
      text: "exit 1: C:\\Repos\\A\\A.App\\Program.cs(12,9): error CS1061: 'IServiceCollection' has no 'AddSingleton'",
    });
    // Two builds failing on two errors read as two failures, not as one verdict twice.
    expect(outcomeOf(dotnet, build('error NUnit1032: The field _writer should be disposed')).text).toContain(
      'error NUnit1032: The field _writer should be disposed',
    );
    // A verdict with nothing before it is still the failure.
    expect(outcomeOf(call('bash', { command: './gradlew build' }), result('BUILD FAILED in 3s'))).toEqual({
      ok: false,
      text: 'error: BUILD FAILED in 3s',
    });
  });

  it('a call the person refused did not run: said so, with what they said instead', () => {
    const claudeCode = [
      "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the",
      'new_string was NOT written to the file). To tell you how to proceed, the user said:',
      'move it to trash instead, the build cache is in there',
    ].join('\n');
    const rm = call('Bash', { command: 'rm -rf build' });
    expect(outcomeOf(rm, result(claudeCode))).toEqual({
      ok: false,
      text: 'error: Refused by the user: move it to trash instead, the build cache is in there',
    });
    const plain = "The user doesn't want to take this action right now. STOP what you are doing and wait for the user.";
    expect(outcomeOf(rm, result(plain))).toEqual({ ok: false, text: 'error: Refused by the user' });
    const edit = call('replace_in_file', { path: 'src/a.ts', diff: '<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE' });
    const cline =
      'The user denied this operation and provided the following feedback:\n<feedback>\nkeep x\n</feedback>';
    expect(outcomeOf(edit, result(cline))).toEqual({ ok: false, text: 'error: Refused by the user: keep x' });
    const gemini = call('run_shell_command', { command: 'npm test' });
    expect(outcomeOf(gemini, result('[Operation Cancelled] Reason: User did not allow tool call')).ok).toBe(false);
    // Read back from its step line, it is the same refusal.
    const back = callOfStepLine('- Bash `rm -rf build` → error: Refused by the user: use trash', 'c9')!;
    expect(callOutcome(toolActivity(back.call, {}), back.result).text).toBe('error: Refused by the user: use trash');
    // A command whose output mentions a refusal further down is read as before.
    expect(
      outcomeOf(call('bash', { command: 'python audit.py' }), result('checked 3\nrequests rejected by user: 0')).ok,
    ).toBe(true);
  });

  it("an editing or reading tool's refusal is a failure, unflagged too (Codex, Cline, OpenCode, Goose, Cursor, OpenHands)", () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-foo\n+bar\n*** End Patch';
    const refusals: [string, Record<string, unknown>, string][] = [
      [
        'apply_patch',
        { input: patch },
        'apply_patch verification failed: Failed to find expected lines in /w/src/a.ts:\nfoo()',
      ],
      [
        'replace_in_file',
        { path: 'src/a.ts', diff: 'x' },
        'The tool execution failed with the following error:\n<error>\nThe SEARCH block does not match anything in the file.\n</error>',
      ],
      [
        'edit',
        { filePath: '/w/a.ts', oldString: 'x', newString: 'y' },
        'oldString found multiple times and requires more code context',
      ],
      [
        'developer__text_editor',
        { command: 'str_replace', path: '/w/a.py' },
        "'old_str' must appear exactly once in the file, but it does not appear in the file.",
      ],
      ['edit_file', { target_file: 'src/a.ts', code_edit: '// ...' }, 'The apply model made no changes to the file.'],
      [
        'str_replace_editor',
        { command: 'str_replace', path: '/w/a.py' },
        'No replacement was performed. Multiple occurrences of old_str `x` in lines [3, 9].',
      ],
      ['read_file', { path: '/w/nope.ts' }, 'File not found: /w/nope.ts'],
      ['read_file', { absolute_path: '/w/src' }, 'Path is a directory, not a file: /w/src'],
    ];
    for (const [name, args, output] of refusals)
      expect([name, outcomeOf(call(name, args), result(output)).ok]).toEqual([name, false]);
    expect(outcomeOf(call('replace_in_file', { path: 'src/a.ts', diff: 'x' }), result(refusals[1]![2])).text).toBe(
      'error: The SEARCH block does not match anything in the file.',
    );
    // A file's contents say what they say: a read of a longer file that opens with an error is a read.
    expect(
      outcomeOf(call('read_file', { path: 'notes.md' }), result('Error: the old API\nwas removed\nin v2')).ok,
    ).toBe(true);
    expect(
      outcomeOf(call('apply_patch', { input: patch }), result('Success. Updated the following files:\nM src/a.ts')).ok,
    ).toBe(true);
  });

  it("Claude Code's poll of a background shell reads as what the shell printed and how it ended; a redirect, where to", () => {
    const poll = (output: string) => outcomeOf(call('BashOutput', { bash_id: 'b1' }), result(output));
    const failed =
      '<status>failed</status>\n\n<exit_code>1</exit_code>\n\n<stdout>\n> dev\n</stdout>\n\n' +
      '<stderr>\nError: listen EADDRINUSE: address already in use :::3000\n</stderr>\n\n<timestamp>2025-01-01T10:00:00Z</timestamp>';
    expect(poll(failed)).toEqual({
      ok: false,
      text: 'exit 1: Error: listen EADDRINUSE: address already in use :::3000',
    });
    // (Was `ok`: its tags read as the output.)
    expect(
      poll('<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\nbuilt in 3.2s\n</stdout>'),
    ).toEqual({
      ok: true,
      text: 'ok: built in 3.2s',
    });
    expect(poll('<status>running</status>\n\n<timestamp>2025-01-01T10:00:00Z</timestamp>').text).toBe(
      'ok: (running, no output)',
    );
    const redirect =
      'REDIRECT DETECTED: The URL redirects to a different host.\n\nOriginal URL: https://x.dev/docs\n' +
      'Redirect URL: https://docs.x.dev/\nStatus: 301 Moved Permanently';
    // (Was `ok: https://x.dev/docs`: the URL it asked for.)
    expect(outcomeOf(call('WebFetch', { url: 'https://x.dev/docs', prompt: 'api' }), result(redirect)).text).toBe(
      'ok: redirects to https://docs.x.dev/',
    );
  });

  it("a service's or the harness's answer that a call failed is a failure, unflagged too (a fetch, MCP, permissions)", () => {
    const failed: [string, Record<string, unknown>, string][] = [
      ['WebFetch', { url: 'https://x.dev/docs', prompt: 'api' }, 'Request failed with status code 404'],
      ['mcp__github__get_issue', { issue_number: 9 }, 'MCP error -32603: Not Found'],
      ['WebSearch', { query: 'x' }, 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}}'],
      ['Bash', { command: 'npm publish' }, 'Permission to use Bash with command npm publish has been denied.'],
      [
        'Write',
        { file_path: '/w/a.ts', content: 'x' },
        "Claude requested permissions to write to /w/a.ts, but you haven't granted it yet.",
      ],
      [
        'Task',
        { description: 'explore', prompt: 'x' },
        "Agent type 'Explorer' not found. Available agents: general-purpose",
      ],
      ['NotebookEdit', { notebook_path: 'a.ipynb', new_source: 'x' }, 'Cell with ID "abc" not found in notebook.'],
    ];
    for (const [name, args, output] of failed)
      expect([name, outcomeOf(call(name, args), result(output))]).toEqual([
        name,
        { ok: false, text: `error: ${output}` },
      ]);
    // What a search did not find is no failure.
    expect(outcomeOf(call('Glob', { pattern: '**/*.rs' }), result('No files found')).ok).toBe(true);
    expect(
      outcomeOf(call('mcp__github__get_issue', { issue_number: 9 }), result('{"number":9,"state":"open"}')).ok,
    ).toBe(true);
  });

  it("a tool's JSON answer that says it failed is a failure, told by its message (MCP servers, APIs)", () => {
    const answered: [string, string][] = [
      ['{"success":false,"error":"Repository not found"}', 'Repository not found'],
      ['{"isError":true,"content":[{"type":"text","text":"Team ENG not found"}]}', 'Team ENG not found'],
      ['{"error":{"code":-32602,"message":"Invalid params: sql is required"}}', 'Invalid params: sql is required'],
      [
        '{"status":"error","message":"Deploy failed: missing env DATABASE_URL"}',
        'Deploy failed: missing env DATABASE_URL',
      ],
      ['{"ok":false,"error":"channel_not_found"}', 'channel_not_found'],
    ];
    for (const [json, message] of answered)
      expect(outcomeOf(call('mcp__app__act', { id: 1 }), result(json))).toEqual({
        ok: false,
        text: `error: ${message}`,
      });
    for (const json of [
      '{"error":null,"data":{"number":9}}',
      '{"error":{},"data":[]}',
      '{"ok":true,"ts":"1.2"}',
      '[{"title":"error handling"}]',
    ])
      expect(outcomeOf(call('mcp__app__act', { id: 1 }), result(json)).ok).toBe(true);
    // A JSON file read, or what a command printed, is data.
    expect(
      outcomeOf(call('read_file', { path: 'fixtures/fail.json' }), result('{"success":false,"error":"x"}')).ok,
    ).toBe(true);
    expect(
      outcomeOf(call('bash', { command: 'curl -s localhost:3000/api' }), result('{"ok":false,"error":"x"}')).ok,
    ).toBe(true);
  });

  it('an exit status that tells more than a failure says so: a timeout, a signal', () => {
    // Codex's shell result: JSON with the output and its exit code (the harness stopped the server after 60 s).
    const codex = (code: number, output = '') =>
      result(JSON.stringify({ output, metadata: { exit_code: code, duration_seconds: 60.1 } }));
    const server = call('shell', { command: ['node', 'express.js'], timeout: 60000 });
    expect(outcomeOf(server, codex(143))).toEqual({ ok: false, text: 'exit 143 (terminated: SIGTERM)' });
    expect(outcomeOf(call('bash', { command: 'timeout 30 node express.js' }), result('Exit code: 124'))).toEqual({
      ok: false,
      text: 'exit 124 (timed out)',
    });
    expect(tellingErrorLine(result('Exit code: 137'), 'Exit code: 137')).toBe('Exit code: 137 (killed: SIGKILL)');
    // A status with no such meaning, or a line printed before it, is told as before.
    expect(outcomeOf(call('bash', { command: 'make' }), result('make: *** [all] Error 2\nExit code: 2'))).toEqual({
      ok: false,
      text: 'exit 2: make: *** [all] Error 2',
    });
  });

  it('a probe answering "none" with exit 1 did not fail (lsof, pgrep, which, command -v, cmp)', () => {
    for (const command of ['lsof -i :9000', 'pgrep -f "node server"', 'which rg', 'command -v uv', 'cmp a.bin b.bin'])
      expect(outcomeOf(call('bash', { command }), result('Exit code: 1'))).toEqual({
        ok: true,
        text: 'no match (exit 1)',
      });
    // Any other status, or another command, failed.
    expect(outcomeOf(call('bash', { command: 'lsof -i :9000' }), result('Exit code: 2')).ok).toBe(false);
    expect(outcomeOf(call('bash', { command: 'curl localhost:9000' }), result('Exit code: 1')).ok).toBe(false);
  });

  it("reads OpenHands' results: its four frame lines are no output, its editor's ERROR: says why on the next line", () => {
    const frame = [
      '[The command completed with exit code 0.]',
      '[Current working directory: /workspace/vuejs__core__0.1]',
      '[Python interpreter: /openhands/poetry/openhands-ai-5O4_aCHf-py3.12/bin/python]',
      '[Command finished with exit code 0]',
    ];
    const bash = (command: string) => call('execute_bash', { command });
    expect(outcomeOf(bash('npm run build'), result(['built in 93ms', ...frame].join('\n')))).toEqual({
      ok: true,
      text: 'ok: built in 93ms',
    });
    // An error the run printed before the frame (exit 0) is no longer hidden by it.
    const printed = [
      'Error: On-the-fly template compilation is not supported in the ESM build',
      '    at compileToFunction (file:///w/server-renderer.mjs:12:9)',
      ...frame,
    ];
    expect(outcomeOf(bash('node repro.mjs'), result(printed.join('\n')))).toEqual({
      ok: false,
      text: 'error: Error: On-the-fly template compilation is not supported in the ESM build',
    });
    const editor = call('str_replace_editor', { command: 'str_replace', path: '/w/repro.ts' });
    expect(outcomeOf(editor, result('ERROR:\nParameter `old_str` is required for command: str_replace.'))).toEqual({
      ok: false,
      text: 'error: Parameter `old_str` is required for command: str_replace.',
    });
    // A failed view is no file's contents (OpenHands does not flag it).
    const view = call('str_replace_editor', { command: 'view', path: '/w/missing.py' });
    expect(
      outcomeOf(view, result('ERROR:\nInvalid `path` parameter: /w/missing.py. The path does not exist.')),
    ).toEqual({
      ok: false,
      text: 'error: Invalid `path` parameter: /w/missing.py. The path does not exist.',
    });
    // A file that holds the word is read as it is.
    expect(outcomeOf(view, result('1\tERROR: x\n2\tlog("ERROR:")')).ok).toBe(true);
  });

  it('a search last in a pipeline, or run by xargs, that found nothing did not fail', () => {
    const finding = (command: string, status: number) =>
      outcomeOf(call('bash', { command }), result(`[Command finished with exit code ${status}]`));
    expect(finding('find src -name "*.ts" | grep option', 1)).toEqual({ ok: true, text: 'no match (exit 1)' });
    // A shell test that answered no (`[ -f .env ]`, `[[ -d x ]]`), as `test` does.
    expect(finding('[ -f .env ]', 1)).toEqual({ ok: true, text: 'no match (exit 1)' });
    expect(finding('[[ -d node_modules ]]', 1)).toEqual({ ok: true, text: 'no match (exit 1)' });
    expect(finding('find src -name "*.ts" | xargs grep -l "option"', 123)).toEqual({
      ok: true,
      text: 'no match (exit 123)',
    });
    // 123 of anything else, or 1 of a pipeline ending in something else, failed.
    expect(finding('find src -name "*.ts" | xargs rm', 123).ok).toBe(false);
    expect(finding('grep -l option src/a.ts | xargs wc -l', 1).ok).toBe(true); // (grep first: as before)
    expect(finding('npm test | tail -5', 1).ok).toBe(false);
  });

  it('reads the counts of dotnet test, old and new loggers', () => {
    const dotnet = call('run_shell_command', { command: 'dotnet test' });
    expect(
      outcomeOf(
        dotnet,
        result('Test summary: total: 3, failed: 0, succeeded: 3, skipped: 0, duration: 1.2s\nBuild succeeded in 5.1s'),
      ),
    ).toEqual({ ok: true, text: 'tests 0 failed, 3 passed, 0 skipped' });
    const failed = outcomeOf(
      dotnet,
      result('Failed!  - Failed:     1, Passed:     2, Skipped:     0, Total:     3, Duration: 45 ms - A.Tests.dll'),
    );
    expect(failed.ok).toBe(false);
    expect(failed.text).toContain('(tests 1 failed, 2 passed, 0 skipped)');
  });

  it('the same tools succeeding are no failure', () => {
    expect(
      outcomeOf(call('bash', { command: './gradlew build' }), result('> Task :compileJava\nBUILD SUCCESSFUL in 3s')).ok,
    ).toBe(true);
    expect(
      outcomeOf(
        call('bash', { command: 'git merge feature' }),
        result('Updating 1a2b3c4..5d6e7f8\nFast-forward\n src/a.ts | 2 +-'),
      ).ok,
    ).toBe(true);
    expect(
      outcomeOf(call('bash', { command: 'mypy src' }), result('Success: no issues found in 3 source files')).ok,
    ).toBe(true);
  });

  it('an error line that is only an exit status is told by the line the command printed last', () => {
    const claude = result('Exit code 1\nExpecting value: line 1 column 1 (char 0)');
    const curl = toolActivity(call('Bash', { command: 'curl -s localhost:8000/x | python3 -m json.tool' }), {});
    expect(errorLineOf(claude, curl)).toBe('Exit code 1');
    expect(tellingErrorLine(claude, 'Exit code 1')).toBe('Expecting value: line 1 column 1 (char 0)');
    expect(failureOf(curl, claude)).toBe('exit 1: Expecting value: line 1 column 1 (char 0)');
    expect(tellingErrorLine(result('[Command finished with exit code 2]'), '[Command finished with exit code 2]')).toBe(
      '[Command finished with exit code 2]',
    );
  });

  it("states a refused edit by the errors listed under the harness's ERRORS: header (SWE-agent's linter)", () => {
    const refused = [
      'Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.',
      '',
      'ERRORS:',
      "- F821 undefined name 'binascii'",
      "- F821 undefined name 'os'",
      '',
      'This is how your edit would have looked if applied',
      '-------------------------------------------------',
      '1:import os',
    ].join('\n');
    const edit = call('bash', { command: 'edit 2:2\n    cipher = binascii.unhexlify(f.read())\nend_of_edit' });
    expect(failureOf(toolActivity(edit, {}), result(refused))).toBe(
      "error: Your proposed edit has introduced new syntax error(s): F821 undefined name 'binascii'; F821 undefined name 'os'",
    );
  });

  it('a command the harness stopped did not finish: aborted, timed out, whatever it printed before', () => {
    const check = call('bash', { command: 'npm run check 2>&1 | head -40' });
    expect(outcomeOf(check, result('Command aborted'))).toEqual({ ok: false, text: 'error: Command aborted' });
    const debug = [
      'Debugger attached.',
      '> node --test test/*.test.ts',
      'Error in the js-debug bootloader, please report to https://aka.ms/js-dbg-issue: no V8::Inspector',
      '',
      'Command aborted',
    ].join('\n');
    expect(outcomeOf(check, result(debug, true))).toEqual({ ok: false, text: 'error: Command aborted' });
    expect(
      outcomeOf(call('Bash', { command: 'npm run e2e' }), result('running…\nCommand timed out after 2m 0.0s')),
    ).toEqual({ ok: false, text: 'error: Command timed out after 2m 0.0s' });
    // The person stopped it (Claude Code's line; Gemini CLI's, first, above what it printed before).
    expect(
      outcomeOf(call('Bash', { command: 'npm test' }), result('[Request interrupted by user for tool use]')),
    ).toEqual({ ok: false, text: 'error: [Request interrupted by user for tool use]' });
    const cancelled =
      'Command was cancelled by user before it could complete. Below is the output before it was cancelled:';
    expect(
      outcomeOf(call('run_shell_command', { command: 'npm test' }), result(`${cancelled}\nPASS a.test.ts`)).ok,
    ).toBe(false);
    // A file that ends in those words is data.
    expect(errorLineOf(result('notes\nCommand aborted'), toolActivity(call('read', { path: 'notes.md' }), {}))).toBe(
      undefined,
    );
  });

  it('a warning is no failure, whatever its words (pwntools in a container without a terminal)', () => {
    const exploit = [
      'Warning: _curses.error: setupterm: could not find terminfo database',
      '',
      'Terminal features will not be available.  Consider setting TERM variable to your current terminal name.',
      '[+] Opening connection to pwn.chal.csaw.io on port 8000: Done',
      'FLAG{LET_US_BEGIN_CSAW_2016}',
    ].join('\n');
    expect(outcomeOf(call('bash', { command: 'python exploit.py' }), result(exploit))).toEqual({
      ok: true,
      text: 'ok: FLAG{LET_US_BEGIN_CSAW_2016}',
    });
    // The same words as an error line still tell a failure.
    expect(outcomeOf(call('bash', { command: 'tput cols' }), result('tput: could not find terminfo database')).ok).toBe(
      false,
    );
  });

  it('a search that found nothing is no failure, though the harness flags its exit 1 as an error', () => {
    const grep = call('bash', { command: 'grep -rn "retryLimit" src' });
    // pi's bash tool and Claude Code's Bash flag a non-zero exit and say its status.
    expect(outcomeOf(grep, result('(no output)\n\nCommand exited with code 1', true))).toEqual({
      ok: true,
      text: 'no match (exit 1)',
    });
    expect(outcomeOf(grep, result('Exit code 1', true))).toEqual({ ok: true, text: 'no match (exit 1)' });
    // What it printed when it failed otherwise (exit 2), and a status that is no search's, still fail.
    expect(outcomeOf(grep, result('grep: src: No such file or directory\n\nCommand exited with code 2', true)).ok).toBe(
      false,
    );
    expect(
      outcomeOf(call('bash', { command: 'make' }), result('(no output)\n\nCommand exited with code 1', true)).ok,
    ).toBe(false);
  });

  it('a flagged result with no line of error shape: its status and the line printed last, not an npm banner', () => {
    const dev = call('bash', { command: 'timeout 60 npm run dev' });
    const banner = '> app@1.0.0 dev\n> vite\n\n  VITE v5.0.0  ready in 300 ms\n  ➜  Local:   http://localhost:5173/';
    expect(outcomeOf(dev, result(`${banner}\n\nCommand exited with code 124`, true))).toEqual({
      ok: false,
      text: 'exit 124 (timed out): ➜ Local: http://localhost:5173/',
    });
    expect(outcomeOf(dev, result(banner, true)).text).toBe('error: ➜ Local: http://localhost:5173/');
    // A tool's (not a shell's) flagged message is its first line.
    expect(outcomeOf(call('fetch_issue', { id: 7 }), result('Not found\nrequest id 9f2c', true)).text).toBe(
      'error: Not found',
    );
  });

  it('reads the counts of the common test runners', () => {
    expect(testCountsOf('test result: FAILED. 10 passed; 2 failed; 0 ignored')).toBe('10 passed; 2 failed; 0 ignored');
    expect(testCountsOf('  14 passing (2s)\n  1 failing')).toBe('14 passing 1 failing');
    expect(testCountsOf('jest: 552 passed, 0 failed')).toBeUndefined();
    expect(testCountsOf('552 passed, 0 failed')).toBe('552 passed, 0 failed');
    // pytest's closing line, framed by `=` or bare (`-q`).
    expect(testCountsOf('==== 2 failed, 10 passed in 1.20s ====')).toBe('2 failed, 10 passed');
    expect(testCountsOf('F.\n1 failed, 1 passed, 2 warnings in 61.20s (0:01:01)')).toBe(
      '1 failed, 1 passed, 2 warnings',
    );
    expect(testCountsOf('all good')).toBeUndefined();
  });
});

describe('describeCall: one line per call', () => {
  it('keeps file names whole, ranks arguments by usefulness and drops noise', () => {
    const edit = call('Edit', {
      replace_all: false,
      file_path: '/home/USER/projects/spotter-worktrees/spotter-feature-x/packages/server/src/routes/session-routes.ts',
      old_string: 'x'.repeat(200),
      new_string: 'y'.repeat(250),
    });
    const line = describeCall(edit, toolActivity(edit, {}), { ok: true, text: 'ok' });
    expect(line).toBe(
      'Edit /home/USER/projects/spotter-worktrees/spotter-feature-x/packages/server/src/routes/session-routes.ts (old_string: 200 chars, new_string: 250 chars) → ok',
    );
    expect(line).not.toContain('replace_all');
    const grep = call('Grep', { pattern: 'handleSubmit', path: 'src', output_mode: 'content', '-n': true });
    expect(describeArguments(grep)).toBe('path=src, pattern=handleSubmit, output_mode=content');
    const sh = call('Bash', {
      command: 'cd /repo && npm test -- --runInBand',
      description: 'Run tests',
      timeout: 60000,
    });
    expect(describeCall(sh, toolActivity(sh, {}), { ok: true, text: 'tests 3 passed' })).toBe(
      'Bash `npm test -- --runInBand` → tests 3 passed',
    );
  });

  it("names the file a range edit changed, and a step line read back keeps it (SWE-agent's `edit N:M`)", () => {
    const shell = {};
    toolActivity(call('bash', { command: 'open decrypt.py' }), shell);
    const edit = call('bash', { command: 'edit 5:5\nx = pow(123, -1, 256)\nend_of_edit' });
    const line = describeCall(edit, toolActivity(edit, shell), { ok: true, text: 'ok' });
    expect(line).toBe('bash `edit 5:5` on decrypt.py → ok');
    // Read back (a note stacked on a note), the call still edits that file, whatever was opened before.
    const back = callOfStepLine(`- ${line}`, 's1')!;
    const activity = toolActivity(back.call, { lastOpened: 'chall.py' });
    expect(activity.files).toEqual([{ path: 'decrypt.py', action: 'edit' }]);
    expect(activity.label).toBe('bash edit 5:5 on decrypt.py');
    // A command that names its file is described as it is.
    const sed = call('bash', { command: "sed -i 's/a/b/' decrypt.py" });
    expect(describeCall(sed, toolActivity(sed, {}), { ok: true, text: 'ok' })).toBe(
      "bash `sed -i 's/a/b/' decrypt.py` → ok",
    );
  });

  it('names a sub-agent by what it was asked, not by its prompt', () => {
    const task = call('Task', {
      description: 'Why the store test fails',
      prompt: `Explore the repository and find out why tests/store.spec.ts fails. ${'Be thorough. '.repeat(20)}`,
      subagent_type: 'Explore',
    });
    const report = result('Sessions are stored by `SessionStore`; `save` never sets `expiresAt`.');
    expect(describeCall(task, toolActivity(task, {}), outcomeOf(task, report))).toBe(
      'Task "Why the store test fails" → ok: Sessions are stored by `SessionStore`; `save` never sets `expiresAt`.',
    );
    // Without a description, what it was told to do, cut short.
    const agent = call('codebase_investigator', { objective: 'Map the build scripts' });
    expect(describeCall(agent, toolActivity(agent, {}), { ok: true, text: 'ok' })).toBe(
      'codebase_investigator "Map the build scripts" → ok',
    );
  });

  it('shortens only long paths, and only in the middle', () => {
    expect(shortenPath('src/a.ts')).toBe('src/a.ts');
    const long = `/a/${'b'.repeat(60)}/${'c'.repeat(60)}/d/e/file-name.test.ts`;
    expect(shortenPath(long)).toBe('/a/…/d/e/file-name.test.ts');
  });
});

describe('a pruned result keeps its failure', () => {
  const check = call('bash', { command: 'npm run check' });
  const npmFailure = [
    '> app@1.0.0 check',
    '> tsc --noEmit',
    '',
    "src/main.ts(499,20): error TS2304: Cannot find name 'join'.",
    'npm error Lifecycle script `check` failed with error:',
    'npm error code 2',
    'npm error path /repo/packages/agent',
  ].join('\n');

  it("Docker's report that a build step failed is not what failed: the step's own error line is", () => {
    const build = call('bash', { command: 'docker build -t app .' });
    const docker = [
      '#1 [internal] load build definition from Dockerfile',
      '#5 [2/5] COPY package*.json ./',
      '#6 [3/5] RUN npm ci',
      '#6 4.210 added 312 packages in 4s',
      '#7 [4/5] COPY . .',
      '#8 [4/5] RUN npm run build',
      "#8 2.104 src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      '#8 ERROR: process "/bin/sh -c npm run build" did not complete successfully: exit code: 2',
      '------',
      'ERROR: failed to solve: process "/bin/sh -c npm run build" did not complete successfully: exit code: 2',
      'exit code: 1',
    ].join('\n');
    // (The exit status read is the step's, 2, stated before docker's own.)
    expect(failureOf(toolActivity(build, {}), result(docker))).toBe(
      "exit 2: #8 2.104 src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    );
    // Only the wrapper to tell: it is what failed.
    const only =
      'ERROR: failed to solve: failed to read dockerfile: open Dockerfile: no such file or directory\nexit code: 1';
    expect(failureOf(toolActivity(build, {}), result(only))).toBe(
      'exit 1: ERROR: failed to solve: failed to read dockerfile: open Dockerfile: no such file or directory',
    );
  });

  it('a heading over what failed is told with the line under it (Maven, RSpec)', () => {
    const maven = [
      '[ERROR] COMPILATION ERROR : ',
      '[ERROR] /repo/src/main/java/App.java:[5,9] cannot find symbol',
      '  symbol:   method foo()',
      '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile',
      'exit code: 1',
    ].join('\n');
    expect(failureOf(toolActivity(call('bash', { command: 'mvn -q compile' }), {}), result(maven))).toBe(
      'exit 1: [ERROR] COMPILATION ERROR: [ERROR] /repo/src/main/java/App.java:[5,9] cannot find symbol',
    );
    const rspec = [
      '..F',
      'Finished in 0.01 seconds',
      '3 examples, 1 failure',
      '',
      'Failed examples:',
      '',
      'rspec ./spec/calc_spec.rb:4 # Calc adds',
      'exit code: 1',
    ].join('\n');
    expect(failureOf(toolActivity(call('bash', { command: 'bundle exec rspec' }), {}), result(rspec))).toBe(
      'exit 1: Failed examples: rspec ./spec/calc_spec.rb:4 # Calc adds (tests 3 examples, 1 failure)',
    );
  });

  it("what failed in Kotlin's, PHP's and the JVM's words, not the build's verdict or the last line", () => {
    const gradle = [
      '> Task :compileKotlin FAILED',
      'e: file:///home/u/proj/src/main/kotlin/Main.kt:3:5 Unresolved reference: foo',
      '',
      'FAILURE: Build failed with an exception.',
      '',
      '* What went wrong:',
      "Execution failed for task ':compileKotlin'.",
      'BUILD FAILED in 3s',
      'exit code: 1',
    ].join('\n');
    expect(failureOf(toolActivity(call('bash', { command: './gradlew build' }), {}), result(gradle))).toBe(
      'exit 1: e: file:///home/u/proj/src/main/kotlin/Main.kt:3:5 Unresolved reference: foo',
    );
    // The compiler's older form, on its own.
    expect(errorLineOf(result('e: /p/src/Main.kt: (3, 5): Unresolved reference: foo'), undefined)).toBe(
      'e: /p/src/Main.kt: (3, 5): Unresolved reference: foo',
    );
    const php = [
      'PHP Fatal error:  Uncaught Exception: boom in /app/src/a.php:3',
      'Stack trace:',
      '#0 {main}',
      '  thrown in /app/src/a.php on line 3',
      'exit code: 255',
    ].join('\n');
    expect(failureOf(toolActivity(call('bash', { command: 'php src/a.php' }), {}), result(php))).toBe(
      'exit 255: PHP Fatal error: Uncaught Exception: boom in /app/src/a.php:3',
    );
    const jvm = [
      'Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()" because "s" is null',
      '\tat Main.len(Main.java:5)',
      '\tat Main.main(Main.java:9)',
      'exit code: 1',
    ].join('\n');
    expect(failureOf(toolActivity(call('bash', { command: 'java -cp out Main' }), {}), result(jvm))).toBe(
      'exit 1: Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()" because "s" is null (at Main.java:5)',
    );
  });

  it("reads inside a report's box (Terraform), past npm's fields and a linker driver's closing line", () => {
    const terraform = [
      '╷',
      '│ Error: Reference to undeclared resource',
      '│',
      '│   on main.tf line 12, in resource "aws_instance" "web":',
      '│ A managed resource "aws_subnet" "main" has not been declared in the root module.',
      '╵',
      'exit code: 1',
    ].join('\n');
    expect(failureOf(toolActivity(call('bash', { command: 'terraform plan' }), {}), result(terraform))).toBe(
      'exit 1: Error: Reference to undeclared resource',
    );
    // Only the exit status to tell: the last line the command printed that says something, not the box's corner.
    expect(
      failureOf(toolActivity(call('bash', { command: 'tf' }), {}), result('plan stopped\n}\n╵\nexit code: 1')),
    ).toBe('exit 1: plan stopped');
    const npm = [
      'npm ERR! code ERESOLVE',
      'npm ERR! ERESOLVE unable to resolve dependency tree',
      'npm ERR!',
      'npm ERR! Found: react@18.2.0',
      'exit code: 1',
    ].join('\n');
    expect(failureOf(toolActivity(call('bash', { command: 'npm install' }), {}), result(npm))).toBe(
      'exit 1: npm ERR! ERESOLVE unable to resolve dependency tree',
    );
    const make = [
      'gcc -O2 -c main.c -o main.o',
      "main.c:5:3: warning: implicit declaration of function 'foo' [-Wimplicit-function-declaration]",
      'gcc main.o -o app',
      "/usr/bin/ld: main.o: in function `main':",
      "main.c:(.text+0x1a): undefined reference to `foo'",
      'collect2: error: ld returned 1 exit status',
      'make: *** [Makefile:4: app] Error 1',
      'exit code: 2',
    ].join('\n');
    expect(failureOf(toolActivity(call('bash', { command: 'make' }), {}), result(make))).toBe(
      "exit 2: main.c:(.text+0x1a): undefined reference to `foo'",
    );
    // A tool's own `name: error:` line (argparse's) is what failed.
    expect(
      failureOf(
        toolActivity(call('bash', { command: 'python run.py' }), {}),
        result('usage: run.py [-h] --input INPUT\nrun.py: error: the following arguments are required: --input'),
      ),
    ).toBe('error: run.py: error: the following arguments are required: --input');
  });

  it("a failed jest assertion keeps the values it compared (jest's Expected and Received lines)", () => {
    const jest = [
      'FAIL src/a.test.ts',
      '  ● sum › adds',
      '',
      '    expect(received).toBe(expected) // Object.is equality',
      '',
      '    Expected: 4',
      '    Received: 5',
      '',
      '      at Object.toBe (src/a.test.ts:4:21)',
      'Tests:       1 failed, 1 total',
      'exit code: 1',
    ].join('\n');
    expect(failureOf(toolActivity(call('bash', { command: 'npx jest' }), {}), result(jest))).toBe(
      'exit 1: FAIL src/a.test.ts: sum › adds: expect(received).toBe(expected) // Object.is equality (Expected: 4; Received: 5) (at src/a.test.ts:4) (tests 1 failed, 1 total)',
    );
  });

  it("where an exception was raised: the project's innermost frame, not a library's; not when the line says where", () => {
    const failed = (command: string, output: string) =>
      failureOf(toolActivity(call('bash', { command }), {}), result(`${output}\nexit code: 1`));
    const python = [
      'Traceback (most recent call last):',
      '  File "/usr/lib/python3.11/runpy.py", line 198, in _run_module_as_main',
      '  File "/repo/app/main.py", line 31, in main',
      '    cfg = load_config(path)',
      '  File "/repo/app/config.py", line 12, in load_config',
      '    raise ValueError(f"missing key: {key}")',
      '  File "/repo/.venv/lib/python3.11/site-packages/yaml/__init__.py", line 81, in load',
      'ValueError: missing key: database_url',
    ].join('\n');
    expect(failed('python -m app.main', python)).toBe(
      'exit 1: ValueError: missing key: database_url (at app/config.py:12)',
    );
    const node = [
      "/app/dist/index.js:12\n    throw new Error('boom');\n    ^",
      'Error: boom',
      '    at Object.<anonymous> (/app/dist/index.js:12:11)',
      '    at Module._compile (node:internal/modules/cjs/loader:1256:14)',
      'Node.js v20.11.0',
    ].join('\n');
    expect(failed('node dist/index.js', node)).toBe('exit 1: Error: boom (at dist/index.js:12)');
    const go = [
      'panic: runtime error: index out of range [3] with length 3',
      'goroutine 1 [running]:',
      'main.parse(...)',
      '\t/home/u/proj/parse.go:14',
      'main.main()',
      '\t/home/u/proj/main.go:9 +0x1d',
    ].join('\n');
    expect(failed('go run .', go)).toBe(
      'exit 1: panic: runtime error: index out of range [3] with length 3 (at proj/parse.go:14)',
    );
    // A time of day is no frame.
    expect(failed('node sync.js', 'Error: sync failed\n    at 10:15:00')).toBe('exit 1: Error: sync failed');
    // Only a library's frames: no place; a compiler's line names its own.
    expect(
      failed(
        'node x.js',
        "Error: Cannot find module './lib'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1144:15)",
      ),
    ).toBe("exit 1: Error: Cannot find module './lib'");
    expect(failed('tsc', "src/a.ts(3,1): error TS2304: Cannot find name 'join'.\n    at x (/app/a.js:1:1)")).toBe(
      "exit 1: src/a.ts(3,1): error TS2304: Cannot find name 'join'.",
    );
  });

  it("a package manager's closing lines are not what failed: the compiler's line is", () => {
    expect(errorLineOf(result(npmFailure), toolActivity(check, {}))).toBe(
      "src/main.ts(499,20): error TS2304: Cannot find name 'join'.",
    );
    // With nothing more telling in the output, the package manager's line is all there is.
    expect(errorLineOf(result('> x\nnpm error missing script: lint'), toolActivity(check, {}))).toBe(
      'npm error missing script: lint',
    );
  });

  it('a failed run whose first and last lines say nothing: the first telling line of its body', () => {
    // A workspace run: the failing package's compiler line and npm's lines in the middle, other packages' passing
    // checks and the exit status at the end.
    const workspaces = [
      '> root@1.0.0 check',
      '> biome check --write . && npm run check --workspaces',
      'Checked 232 files in 119ms. No fixes applied.',
      '> @app/agent@0.14.2 check',
      '> tsgo --noEmit',
      "src/session.ts(532,34): error TS2339: Property 'tokensAfter' does not exist on type 'Entry'.",
      'npm error Lifecycle script `check` failed with error:',
      'npm error code 2',
      '> @app/web@0.14.2 check',
      '> tsc --noEmit',
      '',
      'Command exited with code 2',
    ].join('\n');
    expect(failureOf(toolActivity(check, {}), result(workspaces))).toBe(
      "exit 2: src/session.ts(532,34): error TS2339: Property 'tokensAfter' does not exist on type 'Entry'.",
    );
    // Without an exit status or an error flag the body is not searched: an "error" word in a log is no failure.
    expect(errorLineOf(result(workspaces.replace('Command exited with code 2', 'done')), undefined)).toBeUndefined();
  });

  it('an exit status where other agents report it: first (Codex), or above a few closing lines (Gemini CLI)', () => {
    const codex = ['Exit code: 1', 'Wall time: 0.4 seconds', 'Output:', 'ModuleNotFoundError: No module named x'];
    expect(failureOf(toolActivity(check, {}), result(codex.join('\n')))).toBe(
      'exit 1: ModuleNotFoundError: No module named x',
    );
    const passed = ['Exit code: 0', 'Wall time: 0.4 seconds', 'Output:', '3 files checked'].join('\n');
    expect(failureOf(toolActivity(check, {}), result(passed))).toBeUndefined();
    const gemini = [
      'Command: make',
      'Stdout: building',
      'Stderr: (empty)',
      'Exit Code: 2',
      'Signal: (none)',
      'Background PIDs: (none)',
      'Process Group PGID: 4242',
    ];
    expect(failureOf(toolActivity(check, {}), result(gemini.join('\n')))?.startsWith('exit 2')).toBe(true);
    // Its newer frame says `Error: (none)` after every command: of a short output, not what failed.
    const frame = (output: string, exit: number) =>
      [`Command: python3 a.py`, 'Directory: (root)', `Output: ${output}`, 'Error: (none)', `Exit Code: ${exit}`]
        .concat(['Signal: (none)', 'Background PIDs: (none)', 'Process Group PGID: (none)'])
        .join('\n');
    expect(failureOf(toolActivity(check, {}), result(frame('pwntools available', 0)))).toBeUndefined();
    expect(failureOf(toolActivity(check, {}), result(frame("NameError: name 'x' is not defined", 1)))).toBe(
      "exit 1: NameError: name 'x' is not defined",
    );
  });

  it("a linter's diagnostics (biome's ×, eslint's rows and ✖ count) are what failed", () => {
    const biome = [
      '> root@1.0.0 check',
      '> biome check --write .',
      'src/agent-session.ts:205:2 parse ━━━━━━━━━━',
      '  × expected a semicolon to end the class property, but found none',
      'Found 49 errors.',
      'Command exited with code 1',
    ].join('\n');
    expect(failureOf(toolActivity(check, {}), result(biome))).toBe(
      'exit 1: × expected a semicolon to end the class property, but found none',
    );
    const eslint = [
      '/repo/src/a.ts',
      "  12:5  error  'x' is assigned a value but never used  no-unused-vars",
      '',
      '✖ 1 problem (1 error, 0 warnings)',
    ].join('\n');
    expect(errorLineOf(result(eslint), toolActivity(call('bash', { command: 'npx eslint src' }), {}))).toBe(
      "  12:5  error  'x' is assigned a value but never used  no-unused-vars",
    );
    // Told with the file it is listed under (stylish rows name only a place), not the rows' own line alone.
    expect(
      tellingErrorLine(result(eslint), "  12:5  error  'x' is assigned a value but never used  no-unused-vars"),
    ).toBe("/repo/src/a.ts 12:5  error  'x' is assigned a value but never used  no-unused-vars");
    expect(
      tellingErrorLine(result(eslint.replace('/repo/src/a.ts', 'a heading that is no file')), '  12:5  error  x'),
    ).toBe('  12:5  error  x');
    expect(errorLineOf(result('Found 0 errors. Watching for file changes.'), undefined)).toBeUndefined();
    // Claude Code's tool errors come wrapped, without the error flag in some transcripts; a call that names no
    // file is no file read, whose "errors" would be data.
    const taskOutput = call('TaskOutput', { task_id: 'ac27727' });
    expect(
      failureOf(
        toolActivity(taskOutput, {}),
        result('<tool_use_error>No task found with ID: ac27727</tool_use_error>'),
      ),
    ).toBe('error: No task found with ID: ac27727');
  });

  it('failureOf: what a failed result is remembered by; undefined for a success', () => {
    expect(failureOf(toolActivity(check, {}), result(npmFailure))).toBe(
      "error: src/main.ts(499,20): error TS2304: Cannot find name 'join'.",
    );
    expect(failureOf(toolActivity(check, {}), result('Found 0 errors.'))).toBeUndefined();
    const edit = call('edit', { path: 'a.ts', oldText: 'x', newText: 'y' });
    expect(failureOf(toolActivity(edit, {}), result('Could not find the exact text in a.ts', true))).toBe(
      'error: Could not find the exact text in a.ts',
    );
    expect(failureOf(toolActivity(edit, {}), result('Successfully replaced text in a.ts.'))).toBeUndefined();
  });

  it('a placeholder with a failure is a failure; without one, a success — unless its message is an error', () => {
    const failed = result(prunedPlaceholder('bash', 'command=npm run check', 1200, 'exit 2: make: *** [all] Error 2'));
    expect(outcomeOf(check, failed)).toEqual({ ok: false, text: 'exit 2: make: *** [all] Error 2' });
    expect(errorLineOf(failed, toolActivity(check, {}))).toBe('exit 2: make: *** [all] Error 2');
    const fine = result(prunedPlaceholder('bash', 'command=npm run check', 1200));
    expect(outcomeOf(check, fine)).toEqual({ ok: true, text: 'ok' });
    expect(errorLineOf(fine, toolActivity(check, {}))).toBeUndefined();
    const flagged = result(prunedPlaceholder('bash', 'command=npm run check', 1200), true);
    expect(outcomeOf(check, flagged).ok).toBe(false);
    // A failure text ending in "]" or spanning lines still reads back whole.
    const bracket = result(prunedPlaceholder('read', 'path=a[1].ts', 10, 'error: no such file [a[1].ts]\nsee above'));
    expect(outcomeOf(call('read', { path: 'a[1].ts' }), bracket)).toEqual({
      ok: false,
      text: 'error: no such file [a[1].ts] see above',
    });
  });
});
