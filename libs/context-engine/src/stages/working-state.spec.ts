import fc from 'fast-check';
import type { ChatMessage, ToolCall } from '../model/message';
import type { EffectiveEntry } from '../overlay';
import { callOfStepLine, callOutcome, describeCall } from '../summarizer/call-outcome';
import { toolActivity } from '../summarizer/tool-activity';
import { keptSteps, shortNote, STEPS_HEADING } from './split-turn';
import { workingStateOf } from './working-state';

const original = (message: ChatMessage, at: number): EffectiveEntry => ({ message, from: at, to: at, tokens: 10 });
const note = (content: string, from: number, to: number): EffectiveEntry => ({
  message: { role: 'system', content },
  from,
  to,
  blockId: `b${from}`,
  stage: 'split-turn',
  tokens: 50,
});

describe('workingStateOf: a note without a working state of its own', () => {
  it('still gives the files, commands and errors its step lines name (they are not lost when notes stack)', () => {
    // An earlier split-turn note too small to carry a working state: only its step lines tell what happened.
    const bare = [
      '[Turn prefix compressed — 3 earlier tool call(s)]',
      '# In-turn steps (oldest first)',
      '- intent: Create a script that reproduces the bug.',
      '- bash `create reproduce_bug.py` → ok',
      '- bash `edit 1:1` → ok',
      '- bash `python reproduce_bug.py` → error: AttributeError: PixelRepresentation is missing (×2)',
      '- Read /repo/pkg/numpy_handler.py (offset=280) → 120 lines',
    ].join('\n');
    const find: ToolCall = { id: 'c9', name: 'bash', arguments: JSON.stringify({ command: 'find_file "dataset.py"' }) };
    const entries: EffectiveEntry[] = [
      note(bare, 3, 10),
      original({ role: 'assistant', content: '', toolCalls: [find] }, 11),
      original({ role: 'tool', content: '/repo/pkg/dataset.py', toolCallId: 'c9', toolName: 'bash' }, 12),
    ];
    const state = workingStateOf(entries, 0, 2, 4000)!;
    expect(state).toContain('- reproduce_bug.py (write, edit)');
    expect(state).toContain('- /repo/pkg/numpy_handler.py (read)');
    expect(state).toContain('`python reproduce_bug.py` → error: AttributeError: PixelRepresentation is missing');
    expect(state).toMatch(
      /bash python reproduce_bug\.py — AttributeError: PixelRepresentation is missing \[unresolved\]/,
    );
    expect(state).toContain('`find_file "dataset.py"` → ok');
  });
});

describe('a note squeezed to a few steps (the last resort over the budget)', () => {
  const steps = [
    '- intent: Check the files provided.',
    "- bash `file ~/ctf_files/*` → error: /root/ctf_files/*: cannot open `/root/ctf_files/*' (No such file)",
    '- bash `pwd` → ok',
    '- intent: Check the files again.',
    '- bash `file ./*` → ok',
    '- bash `cat a.txt` → ok',
  ];
  const full = ['[Turn prefix compressed — 4 earlier tool call(s)]', STEPS_HEADING, ...steps].join('\n');

  it('keeps its newest step and its failed calls before other steps, in order, under their heading', () => {
    expect(shortNote(full, false).split('\n')).toEqual([
      '[Turn prefix compressed — 4 earlier tool call(s)]',
      STEPS_HEADING,
      steps[1],
      steps[4],
      steps[5],
    ]);
    expect(keptSteps(steps, 3)).toEqual([steps[1], steps[4], steps[5]]);
    expect(keptSteps(['- bash `a` → ok', '- bash `b` → ok'], 3)).toEqual(['- bash `a` → ok', '- bash `b` → ok']);
    // Failing tests count as a failure; a grep that found nothing does not.
    expect(
      keptSteps(['- bash `npm test` → tests 2 failed, 8 passed', '- bash `grep x` → no match (exit 1)', '- a → ok'], 2),
    ).toEqual(['- bash `npm test` → tests 2 failed, 8 passed', '- a → ok']);
  });

  it('still tells a later note what failed (the note stacked on it reads its steps back)', () => {
    const squeezed: EffectiveEntry = { ...note(shortNote(full, false), 2, 13), stage: 'keep-within-budget' };
    const state = workingStateOf([squeezed], 0, 0, 4000)!;
    expect(state).toContain("`file ~/ctf_files/*` → error: /root/ctf_files/*: cannot open `/root/ctf_files/*'");
  });
});

describe('callOfStepLine: the inverse of describeCall', () => {
  it('property: the call and result read back from a step line describe to the same line', () => {
    const callArb = fc.oneof(
      fc
        .constantFrom('npm test', 'python reproduce.py', 'edit 287:297', 'grep -n foo src/a.ts', 'make build')
        .map((command) => ({ name: 'bash', arguments: JSON.stringify({ command }) })),
      fc
        .tuple(
          fc.constantFrom('Read', 'Edit', 'write', 'str_replace_editor'),
          fc.constantFrom('src/a.ts', '/repo/b.py'),
        )
        .map(([name, path]) => ({ name, arguments: JSON.stringify({ path }) })),
    );
    const resultArb = fc.constantFrom(
      'all good',
      'Error: boom',
      'Traceback (most recent call last):\n  File "x.py"\nValueError: bad',
      'building\nmake: *** [all] Error 2\nexit code: 2',
      'Tests: 2 failed, 10 passed',
      'Found 0 errors. Done in 2.1s',
    );
    fc.assert(
      fc.property(callArb, resultArb, ({ name, arguments: args }, content) => {
        const c: ToolCall = { id: 'c1', name, arguments: args };
        const activity = toolActivity(c, {});
        const result: ChatMessage = { role: 'tool', content, toolCallId: 'c1', toolName: name };
        const line = describeCall(c, activity, callOutcome(activity, result));
        const back = callOfStepLine(`- ${line}`, 'c2')!;
        expect(back).toBeDefined();
        const again = toolActivity(back.call, {});
        expect(describeCall(back.call, again, callOutcome(again, back.result))).toBe(line);
      }),
      { numRuns: 200 },
    );
  });

  it('reads no call from an intent or an omitted-steps line', () => {
    expect(callOfStepLine('- intent: look at the code → then fix it', 'x')).toBeUndefined();
    expect(
      callOfStepLine('- (+4 earlier steps omitted: their files, commands and errors are in the working state)', 'x'),
    ).toBeUndefined();
  });
});
