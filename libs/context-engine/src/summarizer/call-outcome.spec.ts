import type { ChatMessage, ToolCall } from '../model/message';
import { callOutcome, describeArguments, describeCall, shortenPath, testCountsOf } from './call-outcome';
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
    expect(py).toEqual({ ok: false, text: 'error: ModuleNotFoundError: No module named yaml' });
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

  it('reads the counts of the common test runners', () => {
    expect(testCountsOf('test result: FAILED. 10 passed; 2 failed; 0 ignored')).toBe('10 passed; 2 failed; 0 ignored');
    expect(testCountsOf('  14 passing (2s)\n  1 failing')).toBe('14 passing (2s) 1 failing');
    expect(testCountsOf('jest: 552 passed, 0 failed')).toBeUndefined();
    expect(testCountsOf('552 passed, 0 failed')).toBe('552 passed, 0 failed');
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

  it('shortens only long paths, and only in the middle', () => {
    expect(shortenPath('src/a.ts')).toBe('src/a.ts');
    const long = `/a/${'b'.repeat(60)}/${'c'.repeat(60)}/d/e/file-name.test.ts`;
    expect(shortenPath(long)).toBe('/a/…/d/e/file-name.test.ts');
  });
});
