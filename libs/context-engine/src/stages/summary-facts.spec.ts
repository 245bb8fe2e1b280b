import type { EffectiveEntry } from '../overlay';
import { factsMissingFrom, missingItems } from './summary-facts';
import { STEPS_HEADING, WORKING_STATE_HEADING } from './working-state';

const note = (content: string): EffectiveEntry => ({
  message: { role: 'system', content },
  from: 1,
  to: 9,
  blockId: 'b1',
  stage: 'split-turn',
  tokens: 50,
});

describe('factsMissingFrom: what a model summary superseding a note must carry (invariant 8)', () => {
  // A tight note: its working state's bound left the launch command and one read out; its steps name them.
  const content = [
    '[Turn prefix compressed — 4 earlier tool call(s)]',
    WORKING_STATE_HEADING,
    '## Files touched',
    '- (+1 more omitted)',
    '- /srv/a.ts.log (write)',
    STEPS_HEADING,
    '- intent: Start the server, then read its config.',
    '- bash `nohup serve /srv/b.ts > /srv/b.ts.log 2>&1 & echo $!` → ok: background PID 4010, output /srv/b.ts.log',
    '- read /srv/config.ts → 40 lines',
    '- read /srv/a.ts → 12 lines',
    '- bash `npm test` → exit 1: 2 failed',
  ].join('\n');

  it('holds it to the files and commands the steps name, as well as to its working state', () => {
    const missing = factsMissingFrom('Started a server.', [note(content)], 0, 0, 2000)!;
    expect(missing.split('\n')).toEqual([
      '## Files touched',
      '- /srv/a.ts.log (write)',
      '- /srv/config.ts',
      '- /srv/a.ts', // not the log the state lists, whose name starts the same
      '## Commands run',
      '- `nohup serve /srv/b.ts > /srv/b.ts.log 2>&1 & echo $!` → ok: background PID 4010, output /srv/b.ts.log',
      '- `npm test` → exit 1: 2 failed',
    ]);
  });

  it('a summary that names them (the outcome of a command included) is held to nothing more', () => {
    const summary =
      'Wrote /srv/a.ts.log; read /srv/config.ts and /srv/a.ts. Ran `nohup serve /srv/b.ts > /srv/b.ts.log 2>&1 & echo $!` (ok) ' +
      'and `npm test`, which failed with exit 1.';
    expect(factsMissingFrom(summary, [note(content)], 0, 0, 2000)).toBeUndefined();
    // The outcome counts: a summary calling the failed run a success still misses it, whatever digits it has (`2>&1`).
    expect(factsMissingFrom(summary.replace('exit 1', 'success'), [note(content)], 0, 0, 2000)).toBe(
      '## Commands run\n- `npm test` → exit 1: 2 failed',
    );
  });

  it("an error's status counts: fixed or unresolved said as such, a superseded one its target only", () => {
    const state = [
      '## Errors seen',
      "- bash pytest tests/test_fields.py — ImportError: cannot import name 'TimeDelta' [superseded]",
      '- bash pytest tests/test_fields.py — AssertionError: assert 345 == 346 [unresolved]',
    ].join('\n');
    expect(
      missingItems(
        '`pytest tests/test_fields.py` first failed on an import, now on an assertion (still unresolved).',
        state,
      ),
    ).toBeUndefined();
    // Calling the current failure fixed misses it; the superseded one needs no status of its own.
    expect(missingItems('`pytest tests/test_fields.py` failed, then it was fixed.', state)).toBe(
      '## Errors seen\n- bash pytest tests/test_fields.py — AssertionError: assert 345 == 346 [unresolved]',
    );
  });

  it('an exit status counts only said as one', () => {
    const state = '## Commands run\n- `pytest -x` ×2 → last: exit 1: 3 failed, 54 passed';
    for (const said of ['exit 1', 'exit code 1', 'exited with code 1', 'exit status: 1', 'returned 1'])
      expect(missingItems(`Ran \`pytest -x\` (${said}); 54 passed.`, state)).toBeUndefined();
    for (const said of ['passed on attempt 1', 'completed in 1 s', 'see line 11'])
      expect(missingItems(`Ran \`pytest -x\`: ${said}.`, state)).toBe(state);
  });
});
