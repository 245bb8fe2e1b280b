import fc from 'fast-check';
import type { ChatMessage, ToolCall } from '../model/message';
import type { EffectiveEntry } from '../overlay';
import { launchOfLine } from '../summarizer/background';
import { callOfStepLine, callOutcome, describeCall } from '../summarizer/call-outcome';
import { toolActivity } from '../summarizer/tool-activity';
import { answer, newCall, say, stageContext } from '../testing/fixtures';
import { keptSteps, shortNote } from './split-turn';
import {
  COMPACT_STATE_CHARS,
  STEPS_HEADING,
  WORKING_STATE_HEADING,
  compactState,
  markerBlock,
  unsqueezed,
  workingStateChars,
  workingStateOf,
} from './working-state';

const original = (message: ChatMessage, at: number): EffectiveEntry => ({ message, from: at, to: at, tokens: 10 });
/** An entry a block put in the view for originals [from, to]: a split-turn note unless another stage is named. */
const note = (
  content: string,
  from: number,
  to: number,
  stage: EffectiveEntry['stage'] = 'split-turn',
  message: ChatMessage = { role: 'system', content },
): EffectiveEntry => ({ message, from, to, blockId: `b${from}`, stage, tokens: 50 });

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

describe("workingStateOf: a range edit after a note (SWE-agent's `edit N:M` edits the file opened last)", () => {
  const open = newCall('bash', { command: 'open chall.py' });
  const create = newCall('bash', { command: 'create decrypt.py' });
  const edit = newCall('bash', { command: 'edit 2:2\ncipher = bytes.fromhex(f.read())\nend_of_edit' });
  const originals: ChatMessage[] = [
    { role: 'user', content: 'Decrypt msg.enc.' },
    say('', open),
    answer(open, '[File: /ctf/chall.py (15 lines total)]'),
    say('', create),
    answer(create, '[File: /ctf/decrypt.py (1 lines total)]'),
    say('', edit),
    answer(edit, 'Your proposed edit has introduced new syntax error(s).'),
  ];
  // The open and the create are condensed into a note whose state does not say which file is open.
  const entries: EffectiveEntry[] = [
    note(
      '[Turn prefix compressed — 2 earlier tool call(s)]\n# Working state\n## Commands run\n- `open chall.py` → ok',
      1,
      4,
    ),
    original(originals[5]!, 5),
    original(originals[6]!, 6),
  ];

  it('names the file the session had open, read from the messages before the note', () => {
    const state = workingStateOf(entries, 0, 2, 4000, originals)!;
    expect(state).toContain('- decrypt.py (failed edit)'); // refused: the file is as it was
    expect(state).toContain('bash edit 2:2 on decrypt.py — Your proposed edit has introduced new syntax error(s).');
  });

  it('without the originals, the edit is of an unknown file (as before)', () => {
    const state = workingStateOf(entries, 0, 2, 4000)!;
    expect(state).not.toContain('decrypt.py');
    expect(state).toContain('bash edit 2:2 — Your proposed edit');
  });
});

describe('workingStateOf over entries the squeeze cut, given the original messages', () => {
  const write = newCall('write', { path: 'src/parser.ts', content: 'export const parse = () => 1;' });
  const test = newCall('bash', { command: 'npm test -- parser' });
  const originals: ChatMessage[] = [
    { role: 'user', content: 'Add a parser.' },
    say('Writing it.', write),
    answer(write, 'ok'),
    say('', test),
    answer(test, 'FAIL src/parser.spec.ts\n  ✕ parses an empty string\nTests: 1 failed, 3 passed'),
    { role: 'user', content: 'Go on.' },
  ];
  /** What the squeeze left of originals [from, to]: a system message, or the cut body of the tool result at `from`. */
  const cut = (content: string, from: number, to: number, role: 'system' | 'tool' = 'system'): EffectiveEntry =>
    note(content, from, to, 'keep-within-budget', role === 'tool' ? { ...originals[from]!, content } : undefined);

  it('reads a marker cut to its first line as the messages it stands for', () => {
    const entries = [
      cut('[Context compacted: 5 earlier messages omitted to fit the context window]', 0, 4),
      original(originals[5]!, 5),
    ];
    expect(workingStateOf(entries, 0, 1, 4000)).not.toContain('src/parser.ts');
    const state = workingStateOf(entries, 0, 1, 4000, originals)!;
    expect(state).toContain('src/parser.ts (write; changed parse)');
    expect(state).toMatch(/npm test -- parser` → (?:error|tests 1 failed)/);
  });

  it('reads a tool body cut to its head as the whole result, and leaves the other entries as they are', () => {
    const entries = [1, 2, 3].map((at) => original(originals[at]!, at));
    entries.push(cut('FAIL src/parser.spec.ts [… cut to fit the context window]', 4, 4, 'tool'));
    expect(workingStateOf(entries, 0, 3, 4000)).not.toContain('(tests 1 failed, 3 passed)');
    const state = workingStateOf(entries, 0, 3, 4000, originals)!;
    expect(state).toContain('(tests 1 failed, 3 passed)');
    // A marker of keep-within-budget's own cut carries a working state: it is read as it is, not expanded.
    const marker = {
      ...cut(
        `[Context compacted: 5 messages removed to fit the context window]\n${WORKING_STATE_HEADING}\n## Files touched\n- src/other.ts (edit)`,
        0,
        4,
      ),
    };
    const withMarker = workingStateOf([marker, original(originals[5]!, 5)], 0, 1, 4000, originals)!;
    expect(withMarker).toContain('src/other.ts');
    expect(withMarker).not.toContain('src/parser.ts');
    // One the squeeze cut to its first line and a few lines of its state is read as the messages it stands for.
    const squeezed = cut(
      `[Context compacted]\n${WORKING_STATE_HEADING}\n## Files touched\n- src/other.ts (edit)`,
      0,
      4,
    );
    const expanded = workingStateOf([squeezed, original(originals[5]!, 5)], 0, 1, 4000, originals)!;
    expect(expanded).toContain('src/parser.ts (write; changed parse)');
  });
});

describe('workingStateOf over a condensed entry that carries a request cut short', () => {
  const task =
    'Add rate limiting (5 requests a minute per IP) to the signup route in src/routes/user.ts and make the e2e tests pass.';
  const read = newCall('Read', { file_path: 'src/routes/user.ts' });
  const originals: ChatMessage[] = [
    { role: 'user', content: task },
    say('', read),
    answer(read, 'export const router = 1;'),
    { role: 'user', content: 'go on with step 1' },
  ];
  // An earlier marker over [0, 2], its state cut small: the task cut to its first words.
  const earlier = note(
    `[Context compacted: 3 messages removed to fit the context window]\n${WORKING_STATE_HEADING}\n## User requests\n- Add rate limiting (5 requests a minute per IP) to the signu…\n## Files touched\n- src/routes/user.ts (read)`,
    0,
    2,
    'sliding-window',
  );
  const entries = [earlier, original(originals[3]!, 3)];

  it("reads it whole from the person's message when the originals are given: a marker over markers keeps the task", () => {
    const state = workingStateOf(entries, 0, 1, 4000, originals)!;
    expect(state).toContain(`- ${task}`);
    expect(state).toContain('- go on with step 1');
  });

  it('without them, as the earlier marker carried it', () => {
    expect(workingStateOf(entries, 0, 1, 4000)).toContain(
      '- Add rate limiting (5 requests a minute per IP) to the signu…',
    );
  });
});

describe('unsqueezed: the span of a view, the squeezed entries given back', () => {
  it('is the same run of original positions, every entry not squeezed kept as it is (property)', () => {
    // A view over 0..n-1: runs of originals and synthetic entries of various stages, some of them squeezed.
    const kinds = fc.constantFrom(
      'original',
      'note',
      'marker',
      'squeezed-note',
      'squeezed-marker',
      'squeezed-stated-marker',
      'stated-marker',
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(kinds, fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 12 }),
        (runs) => {
          const originals: ChatMessage[] = [];
          const entries: EffectiveEntry[] = [];
          for (const [kind, length] of runs) {
            const from = originals.length;
            for (let k = 0; k < length; k++) originals.push({ role: 'user', content: `m${from + k}` });
            const to = originals.length - 1;
            if (kind === 'original') for (let p = from; p <= to; p++) entries.push(original(originals[p]!, p));
            else {
              const stage =
                kind.startsWith('squeezed') || kind === 'stated-marker' ? 'keep-within-budget' : 'split-turn';
              const content = kind.endsWith('note')
                ? `[Turn prefix compressed]\n${STEPS_HEADING}\n- bash \`ls\` → ok`
                : kind === 'stated-marker'
                  ? `[Context compacted: ${length} messages removed to fit the context window]\n${WORKING_STATE_HEADING}\n## Files touched\n- a.ts (edit)`
                  : kind === 'squeezed-stated-marker'
                    ? `[Context compacted]\n${WORKING_STATE_HEADING}\n## Files touched\n- a.ts (edit)`
                    : '[Context compacted]';
              entries.push(note(content, from, to, stage));
            }
          }
          const i = 0;
          const j = entries.length - 1;
          const span = unsqueezed(entries, i, j, originals);
          // Contiguous and in order, from the first entry's first position to the last entry's last.
          expect(span[0]!.from).toBe(entries[i]!.from);
          expect(span[span.length - 1]!.to).toBe(entries[j]!.to);
          for (let k = 1; k < span.length; k++) expect(span[k]!.from).toBe(span[k - 1]!.to + 1);
          // A squeezed entry became its originals; any other entry is the same object.
          for (const e of entries) {
            const cut =
              e.stage === 'keep-within-budget' &&
              (!e.message.content.includes(WORKING_STATE_HEADING) ||
                e.message.content.startsWith('[Context compacted]'));
            if (cut)
              for (let p = e.from; p <= e.to; p++)
                expect(span).toContainEqual(expect.objectContaining({ message: originals[p], from: p }));
            else expect(span).toContain(e);
          }
        },
      ),
    );
  });
});

describe('a tool result cut short in the view (truncated to its ends, deduplicated to a pointer)', () => {
  it('is read whole by the working state over it: the files of a long listing past its cut', () => {
    const grep = newCall('grep_search', { pattern: 'console\\.log' });
    const read = newCall('read_file', { file_path: 'utils/url-tokenizer.js' });
    const listing = [
      'Found 38 matches for pattern "console\\.log" in path ".":',
      '---',
      'File: tf-core.min.js',
      `L17: ${'!function(e,t){'.repeat(200)}`,
      'File: utils/url-tokenizer.js',
      'L1: console.log("URL Tokenizer module loaded.");',
      'File: ui/popup.js',
      'L40: console.log(result);',
    ].join('\n');
    const file = Array.from({ length: 606 }, (_, k) => `line ${k + 1}`).join('\n');
    const originals: ChatMessage[] = [say('', grep), answer(grep, listing), say('', read), answer(read, file)];
    const cut = (at: number, content: string, stage: EffectiveEntry['stage']): EffectiveEntry =>
      note(content, at, at, stage, { ...originals[at]!, content });
    const entries = [
      original(originals[0]!, 0),
      cut(1, `${listing.slice(0, 120)}\n[... 3000 chars truncated ...]`, 'truncate'),
      original(originals[2]!, 2),
      cut(3, '[File utils/url-tokenizer.js: duplicate read — refer to the later read]', 'dedupe'),
    ];
    const state = workingStateOf(entries, 0, 3, 4000, originals) ?? '';
    expect(state).toContain('- utils/url-tokenizer.js (read, seen)');
    expect(state).toContain('- ui/popup.js (seen)');
    // Without the originals, only what the view kept.
    expect(workingStateOf(entries, 0, 3, 4000) ?? '').not.toContain('ui/popup.js');
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
    expect(shortNote(full, 'bare').split('\n')).toEqual([
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
    const squeezed: EffectiveEntry = { ...note(shortNote(full, 'bare'), 2, 13), stage: 'keep-within-budget' };
    const state = workingStateOf([squeezed], 0, 0, 4000)!;
    expect(state).toContain("`file ~/ctf_files/*` → error: /root/ctf_files/*: cannot open `/root/ctf_files/*'");
  });
});

describe('a note squeezed without its working state still names what the turn left running', () => {
  const launch =
    '- Background: bash `nohup python train.py > train.log &` → PID 4102, output train.log (not collected)';
  const full = [
    '[Turn prefix compressed — 5 earlier tool call(s)]',
    '# Working state',
    '## Files touched',
    '- train.py (read)',
    '## Pending work',
    '- Run the evaluation after training',
    launch,
    STEPS_HEADING,
    '- bash `python report.py` → ok',
  ].join('\n');

  it('keeps the launch lines under their heading, drops the rest of the state', () => {
    expect(shortNote(full, 'bare').split('\n')).toEqual([
      '[Turn prefix compressed — 5 earlier tool call(s)]',
      '# Working state',
      '## Pending work',
      launch,
      STEPS_HEADING,
      '- bash `python report.py` → ok',
    ]);
  });

  it('a later note stacked on it carries the launch', () => {
    const squeezed: EffectiveEntry = { ...note(shortNote(full, 'bare'), 2, 13), stage: 'keep-within-budget' };
    expect(workingStateOf([squeezed], 0, 0, 4000)).toContain('PID 4102');
  });
});

describe('a note squeezed to the most telling lines of its working state (before it loses the state)', () => {
  const launch =
    '- Background: bash `nohup python train.py > train.log &` → PID 4102, output train.log (not collected)';
  const seen = Array.from({ length: 12 }, (_, i) => `- docs/page-${i}.md (seen)`);
  const full = [
    '[Turn prefix compressed — 6 earlier tool call(s)]',
    WORKING_STATE_HEADING,
    '## Files touched',
    ...seen,
    '- /testbed/reproduce.py (write, edit)',
    '## Commands run',
    '- `ls -F` → ok',
    '- `python reproduce.py` → error: TypeError: unsupported operand',
    '## Errors seen',
    '- bash python reproduce.py — TypeError: unsupported operand [unresolved]',
    '## Pending work',
    launch,
    STEPS_HEADING,
    '- intent: We are seeing the same output as the issue; next we look at line 1474 of fields.py to find the rounding.',
    '- bash `ls -F` → ok',
    '- intent: The fields.py file is in src/marshmallow; let us find where TimeDelta serializes its value.',
    '- find_file fields.py (dir=src) → ok',
  ].join('\n');

  it('keeps the changed file, the failed command and the launch within its bound, and the calls without their prose', () => {
    const cut = shortNote(full, 'compact');
    const lines = cut.split('\n');
    expect(lines[0]).toBe('[Turn prefix compressed — 6 earlier tool call(s)]');
    expect(cut).toContain('/testbed/reproduce.py (write, edit)');
    expect(cut).toContain('python reproduce.py — TypeError: unsupported operand [unresolved]');
    expect(cut).not.toContain('(seen)');
    expect(cut).toContain(launch);
    expect(cut).not.toContain('intent:');
    expect(lines.slice(lines.indexOf(STEPS_HEADING) + 1)).toEqual([
      '- bash `ls -F` → ok',
      '- find_file fields.py (dir=src) → ok',
    ]);
    const state = cut.slice(
      cut.indexOf(WORKING_STATE_HEADING) + WORKING_STATE_HEADING.length + 1,
      cut.indexOf(STEPS_HEADING),
    );
    // The bound, and the launch's line on top of it.
    expect(state.trim().length).toBeLessThanOrEqual(COMPACT_STATE_CHARS + launch.length + 1);
    expect(cut.length).toBeLessThan(shortNote(full, 'state').length);
  });

  it('keeps the task, the newest request, a changed file and the newest unresolved error of a marker together', () => {
    const state = [
      '[Context compacted: 18 messages removed]',
      WORKING_STATE_HEADING,
      '## User requests',
      '- Add user signup to the API and get CI green.',
      '- go on with step 0',
      '## Files touched',
      '- src/routes/user.ts (failed edit)',
      '- src/step0.ts (read)',
      '## Commands run',
      '- `gh run view 123` → ok: shows failed: Run npm test',
      "- `sed -i s/a/b/ src/routes/user.ts` → exit 2: sed: can't read src/routes/user.ts: No such file or directory",
      '## Errors seen',
      "- Bash sed -i s/a/b/ src/routes/user.ts — sed: can't read src/routes/user.ts: No such file or directory [unresolved]",
      '- BashOutput — Error: listen EADDRINUSE: address already in use :::3000 [unresolved]',
      '## Current state',
      'step 0 read',
    ].join('\n');
    const compact = compactState(state);
    // (Was without the error: four musts and their headings did not fit 240 characters.)
    for (const line of [
      '- Add user signup to the API and get CI green.',
      '- go on with step 0',
      '- src/routes/user.ts (failed edit)',
      '- BashOutput — Error: listen EADDRINUSE: address already in use :::3000 [unresolved]',
    ])
      expect(compact).toContain(line);
  });

  it('a later note stacked on it still carries what the bare cut would lose', () => {
    const at = (content: string) =>
      workingStateOf([{ ...note(content, 2, 13), stage: 'keep-within-budget' }], 0, 0, 4000) ?? '';
    expect(at(shortNote(full, 'compact'))).toContain('/testbed/reproduce.py');
    expect(at(shortNote(full, 'compact'))).toContain('python reproduce.py');
    expect(at(shortNote(full, 'bare'))).not.toContain('/testbed/reproduce.py');
  });

  it('property: at any bound, every launch line whole, and the rest of the state within the bound', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 1, max: 4 }), (bound, n) => {
        const launches = Array.from(
          { length: n },
          (_, k) =>
            `- Background: bash \`nohup python train${k}.py > train${k}.log &\` → PID ${4100 + k} (not collected)`,
        );
        const content = full.replace(launch, launches.join('\n'));
        const state = compactState(content, bound);
        for (const l of launches) expect(state).toContain(l);
        const rest = state.split('\n').filter((l) => !launches.includes(l) && l !== '## Pending work');
        expect(rest.slice(2).join('\n').length).toBeLessThanOrEqual(Math.max(bound, 0));
      }),
    );
  });

  it('a note without a working state is cut as the bare one is', () => {
    const stateless = [
      '[Turn prefix compressed — 2 earlier tool call(s)]',
      STEPS_HEADING,
      '- intent: look',
      '- bash `ls` → ok',
    ].join('\n');
    expect(shortNote(stateless, 'compact')).toBe(shortNote(stateless, 'bare'));
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

describe('workingStateOf: the bound', () => {
  const ask = (content: string): ChatMessage => ({ role: 'user', content });
  const symbolArb = fc.constantFrom('_cycleAvailableModel', 'cycleModel()', 'setThinkingLevel', 'AgentSession', 'x');
  const callArb = fc.oneof(
    fc
      .constantFrom('a.ts', 'src/b.py', '/repo/packages/coding-agent/src/modes/interactive/interactive-mode.ts')
      .map((path) => ({ name: 'read', args: { path } })),
    fc.constantFrom('a.ts', 'src/b.py').map((file_path) => ({ name: 'Edit', args: { file_path } })),
    fc
      .constantFrom('npm test', 'python x.py', 'npm run dev > dev.log 2>&1 &')
      .map((command) => ({ name: 'bash', args: { command } })),
    fc
      .constantFrom('Poem about Thai green curry', 'Review the parser')
      .map((description) => ({ name: 'Task', args: { description, run_in_background: true } })),
  );
  const resultArb = fc.constantFrom(
    'ok',
    'Error: boom',
    'Traceback (most recent call last):\nValueError: bad value in the configuration of the parser module',
    'done\nCommand exited with code 2',
    'Async agent launched successfully.\nagentId: a9cad17\noutput_file: /tmp/claude/tasks/a9cad17.output',
    '[1] 4242',
  );
  const stepArb = fc.oneof(
    fc.lorem({ maxCount: 60 }).map((t) => [ask(t)]),
    fc
      .tuple(fc.lorem({ maxCount: 30 }), fc.array(symbolArb, { maxLength: 4 }))
      .map(([t, xs]) => [say(`${t}. We decided to use ${xs.map((x) => `\`${x}\``).join(', ')}.`)]),
    fc
      .tuple(fc.array(fc.tuple(callArb, resultArb), { minLength: 1, maxLength: 3 }), fc.lorem({ maxCount: 5 }))
      .map(([pairs, text]) => {
        const calls = pairs.map(([c]) => newCall(c.name, c.args));
        return [say(text, ...calls), ...calls.map((c, i) => answer(c, pairs[i]![1]))];
      }),
  );
  const messagesArb = fc.array(stepArb, { maxLength: 20 }).map((steps) => steps.flat());
  const originals = (messages: readonly ChatMessage[], at = 0): EffectiveEntry[] =>
    messages.map((m, k) => original(m, at + k));
  /** Messages, optionally after a note carrying the working state of earlier ones (notes stack). */
  const entriesArb = fc.tuple(messagesArb, fc.option(messagesArb, { nil: undefined })).map(([messages, before]) => {
    const earlier = before && workingStateOf(originals(before), 0, before.length - 1, 2000);
    if (!earlier) return originals(messages);
    const stacked = note(`[Turn prefix compressed]\n${WORKING_STATE_HEADING}\n${earlier}`, 0, before!.length - 1);
    return [stacked, ...originals(messages, before!.length)];
  });

  /**
   * A line of a bounded state is a line of the unbounded one, or one of the summarizer's documented cuts: the count
   * of items left out, an item cut short where it shows `…` (what follows the mark is the item's end, kept whole),
   * a launch's compact line (fewer handles, the ids whole).
   */
  const isWholeOrMarked = (line: string, whole: readonly string[]): boolean => {
    if (whole.includes(line) || /^- \(\+\d+ more omitted\)$/.test(line)) return true;
    for (let k = line.indexOf('…'); k >= 0; k = line.indexOf('…', k + 1)) {
      const [head, tail] = [line.slice(0, k), line.slice(k + 1)];
      if (whole.some((w) => w.length > head.length + tail.length && w.startsWith(head) && w.endsWith(tail)))
        return true;
    }
    const launch = launchOfLine(line.replace(/^- /, ''));
    return (
      launch !== undefined &&
      whole.some((w) => {
        const of = launchOfLine(w.replace(/^- /, ''));
        return of !== undefined && launch.handles.every((h) => of.handles.some((x) => x.value === h.value));
      })
    );
  };

  it('property: within any bound, and every line whole (or a marked cut of a whole line)', () => {
    fc.assert(
      fc.property(entriesArb, fc.integer({ min: 1, max: 3000 }), (entries, bound) => {
        const state = workingStateOf(entries, 0, entries.length - 1, bound);
        if (state === undefined) return;
        expect(state.length).toBeLessThanOrEqual(bound);
        const whole = workingStateOf(entries, 0, entries.length - 1, 1_000_000)!.split('\n');
        for (const line of state.split('\n'))
          expect({ line, whole: isWholeOrMarked(line, whole) }).toEqual({ line, whole: true });
      }),
      { numRuns: 300 },
    );
  });

  it('a bound too small for the task and the newest request cuts them shorter (marked), the task first', () => {
    const task = ask(`Refactor the session code: ${'split the interactive mode from the renderer, '.repeat(4)}`);
    const newest = ask(`Now move the thinking levels into AgentSession, ${'and keep the key handlers, '.repeat(6)}`);
    const entries = originals([task, say('Reading it first.'), newest, say('Moving them.')]);
    expect(workingStateOf(entries, 0, 3, 4000)).toContain(`- ${task.content.trim()}`);
    // (A request cut to fit takes back what room is left at the end, as its start and its end: marked in its middle.)
    for (const bound of [240, 200])
      expect(workingStateOf(entries, 0, 3, bound)).toMatch(
        /^## User requests\n- Refactor the session code: split .*…\n- Now move the thinking levels .*….*\n/,
      );
    expect(workingStateOf(entries, 0, 3, 160)).toMatch(
      /^## User requests\n- \(\+1 more omitted\)\n- Now move the thinking levels .*…\n/,
    );
    for (let bound = 20; bound <= 400; bound += 20) {
      const state = workingStateOf(entries, 0, 3, bound) ?? '';
      expect(state.length).toBeLessThanOrEqual(bound);
      // An item cut to its mark alone tells nothing: it is left out.
      expect(state).not.toMatch(/^(?:- )?…$/m);
    }
  });
});

describe('markerBlock: a working state too large for the span it hides', () => {
  // Six listings of 25 files each: the working state lists every file (`- path (seen)`), longer than the listings.
  const messages: ChatMessage[] = [{ role: 'user', content: 'Map the modules.' }];
  for (let k = 0; k < 6; k++) {
    const ls = newCall('bash', { command: `ls src/module_${k}` });
    const files = Array.from({ length: 25 }, (_, n) => `src/module_${k}/file_${String(n).padStart(2, '0')}.ts`);
    messages.push(say('', ls), answer(ls, files.join('\n')));
  }
  messages.push({ role: 'user', content: 'Now fix file_03.' });
  const bare: ChatMessage = { role: 'system', content: '[Context compacted: 12 messages removed]' };

  it('carries a smaller working state rather than none', () => {
    const ctx = stageContext(messages, 100_000, { workingStateShare: 1 }, 2_000);
    const full = workingStateOf(ctx.entries, 1, 12, workingStateChars(ctx), ctx.originals)!;
    const spanTokens = ctx.entries.slice(1, 13).reduce((n, e) => n + e.tokens, 0);
    // (The premise: the whole state would not shrink the span.)
    expect(ctx.counter.message({ role: 'system', content: `${bare.content}\n${full}` })).toBeGreaterThan(spanTokens);
    const block = markerBlock(ctx, 'sliding-window', 1, 12, bare)!;
    const kept = block.edits[0]!.replacement[0]!.content;
    expect(kept).toContain(WORKING_STATE_HEADING);
    expect(kept.length).toBeLessThan(bare.content.length + full.length);
    // Its newest files first: the last listing's are there.
    expect(kept).toContain('src/module_5/file_24.ts');
    expect(block.tokensSaved).toBeGreaterThan(0);
  });

  it('over a span already condensed, keeps its most telling lines rather than a bare marker', () => {
    // Earlier markers stand for the first messages: the task, a failure; their span is a few dozen tokens.
    const task = 'Add user signup to the API and get CI green.';
    const originals: ChatMessage[] = [{ role: 'user', content: task }];
    for (let k = 1; k <= 9; k++) originals.push({ role: k % 2 ? 'assistant' : 'user', content: `turn ${k}` });
    const state = [
      WORKING_STATE_HEADING,
      '## User requests',
      `- ${task}`,
      '## Files touched',
      ...Array.from({ length: 30 }, (_, n) => `- src/routes/part_${String(n).padStart(2, '0')}.ts (read)`),
      '## Errors seen',
      '- BashOutput — Error: listen EADDRINUSE: address already in use :::3000 [unresolved]',
    ].join('\n');
    const ctx = stageContext(originals, 100_000, { workingStateShare: 1 }, 2_000);
    const entries: EffectiveEntry[] = [
      {
        ...note(`[Context compacted: 6 messages removed to fit the context window]\n${state}`, 0, 5),
        stage: 'keep-within-budget',
        tokens: 150,
      },
      { ...note('[Earlier conversation history was truncated: 2 messages hidden]', 6, 7), stage: 'sliding-window' },
      ...originals.slice(8).map((m, k) => original(m, 8 + k)),
    ];
    const at = { ...ctx, entries };
    const bare: ChatMessage = { role: 'system', content: '[Context compacted: 8 messages removed]' };
    const block = markerBlock(at, 'keep-within-budget', 0, 1, bare)!;
    const kept = block.edits[0]!.replacement[0]!.content;
    // (The premise: the whole state would not shrink the span. Was the bare marker: nothing smaller was tried.)
    expect(ctx.counter.message({ role: 'system', content: state })).toBeGreaterThan(200);
    expect(kept).toContain(task);
    expect(kept).toContain('EADDRINUSE');
    expect(block.tokensSaved).toBeGreaterThan(0);
    // A span smaller than the whole compact state: a shorter one, still the task (the trial's marker went bare).
    const marker = entries[0]!.message.content;
    const whole = ctx.counter.message({ ...bare, content: `${bare.content}${compactState(marker)}` });
    const half = ctx.counter.message({
      ...bare,
      content: `${bare.content}${compactState(marker, Math.floor(COMPACT_STATE_CHARS / 2))}`,
    });
    expect(whole).toBeGreaterThan(half + 10);
    // (The span: both entries, the second 50 tokens.)
    const small = [{ ...entries[0]!, tokens: Math.floor((whole + half) / 2) - 50 }, ...entries.slice(1)];
    const shorter = markerBlock({ ...ctx, entries: small }, 'keep-within-budget', 0, 1, bare)!;
    expect(shorter.edits[0]!.replacement[0]!.content).toContain(task);
  });
});
