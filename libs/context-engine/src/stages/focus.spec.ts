import fc from 'fast-check';
import { applyBlockToEntries } from '../overlay';
import { assistant, calls, result, stageContext, toolCall, user } from '../testing/fixtures';
import { truncateHeadTail } from './common';
import { focusOf, NO_FOCUS, truncateFocused, type Focus } from './focus';
import { truncateToolOutputs } from './truncate-tool-outputs';

/** A numbered file view of lines `from`..`to`, the way an editor tool shows one (`1474:    code`). */
const fileView = (from: number, to: number, line: (n: number) => string = (n) => `    statement_${n} = ${n}`) =>
  Array.from({ length: to - from + 1 }, (_, k) => `${from + k}:${line(from + k)}`).join('\n');

const cut = (text: string, maxChars: number, focus: Focus, maxLines = 2000) =>
  truncateFocused(text, maxChars, maxLines, focus, truncateHeadTail);

describe('focusOf: what the agent pointed at in a result', () => {
  const view = fileView(1, 300, (n) =>
    n === 150 ? '    return int(value.total_seconds() / base_unit.total_seconds())' : `    x_${n} = compute(${n})`,
  );

  it('takes the line numbers the call asked for, when the result numbers its lines', () => {
    expect(focusOf(view, '', 'open src/fields.py 150').lineNumbers).toEqual([150]);
    // 5000 is not a line of this view; `compute` is in every line, so it points nowhere.
    expect(focusOf(view, 'compute at 5000', '')).toEqual({ terms: [], quoted: [], lineNumbers: [] });
  });

  it('takes the identifiers the reaction names as whole words, and the code lines it quotes', () => {
    const focus = focusOf(
      view,
      'The rounding happens in `total_seconds`; x_12 is unrelated. The queued rows:\n' +
        'return int(value.total_seconds() / base_unit.total_seconds())',
    );
    expect(focus.terms).toEqual(expect.arrayContaining(['total_seconds', 'x_12']));
    expect(focus.quoted).toEqual(['return int(value.total_seconds() / base_unit.total_seconds())']);
    // `int` is too short, `rounding` is not in the result, prose words are no identifiers of it.
    expect(focus.terms).not.toContain('rounding');
    expect(focusOf('queuedMessages\n'.repeat(20), 'the queued messages').terms).toEqual([]);
  });

  it('finds a term after a line-number arrow or a dot, never inside a longer word', () => {
    const lines = ['  1474→retry_limit = 3', 'self.retry_limit += 1', 'max_retry_limit = 9', 'retry_limits = []'];
    const focus = focusOf([...lines, ...Array.from({ length: 20 }, (_, i) => `other_${i}`)].join('\n'), 'retry_limit');
    expect(focus.termLines?.get('retry_limit')).toEqual([0, 1]);
  });

  it('finds each term in exactly the lines where it stands as a whole word (against a regex)', () => {
    const word = fc.constantFrom('alpha', 'beta_2', 'gamma$', 'Delta', 'alphabet', 'x');
    const sep = fc.constantFrom(' ', '.', '(', '→', '_', '1', ': ', '\n', 'é');
    const text = fc.array(fc.oneof(word, sep), { maxLength: 80 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, fc.constantFrom('alpha', 'beta_2', 'Delta'), fc.boolean(), (t, term, many) => {
        // With many names (most not in the text), the text's words screen them before the search.
        const others = many ? Array.from({ length: 30 }, (_, i) => `name${i} alpha.x${i}`).join(' ') : '';
        const reaction = `${term} ${'filler '.repeat(3)}${others}`;
        const lines = t.split('\n');
        const whole = new RegExp(`(?<![A-Za-z0-9_$])${term.replace('$', '\\$')}(?![A-Za-z0-9_$])`);
        const expected = lines.flatMap((l, i) => (whole.test(l) ? [i] : []));
        const found = focusOf(t, reaction).termLines?.get(term) ?? [];
        // Terms in more than a fifth of the lines are dropped from the focus; where kept, the lines are exact.
        if (found.length > 0) expect(found).toEqual(expected);
        else expect(expected.length === 0 || (expected.length >= 3 && expected.length > lines.length / 5)).toBe(true);
      }),
    );
  });
  it('quotes exactly the reaction lines the result contains, searching only those whose words it has (property)', () => {
    const piece = fc.constantFrom('alpha', 'beta_2', 'gamma$', 'x', ' ', '.', '(', ') ', ': ', '9', '→', '= ');
    const line = fc.array(piece, { minLength: 1, maxLength: 12 }).map((p) => p.join(''));
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 30 }),
        // Few lines (each searched for) or many (screened by the result's words first).
        fc.oneof(
          fc.array(fc.oneof(line, fc.nat(1000)), { maxLength: 10 }),
          fc.array(fc.oneof(line, fc.nat(1000)), { minLength: 30, maxLength: 60 }),
        ),
        (resultLines, picks) => {
          const result = resultLines.join('\n');
          // Lines of the result (whole, or a part of one), and lines of its own.
          const reactionLines = picks.map((p) => {
            if (typeof p === 'string') return p;
            const from = resultLines[p % resultLines.length]!;
            return from.slice(p % 3, from.length - (p % 2));
          });
          const naive = [...new Set(reactionLines.map((l) => l.trim()))].filter(
            (l) => l.length >= 12 && result.includes(l),
          );
          expect(focusOf(result, reactionLines.join('\n')).quoted).toEqual(naive.slice(0, 40));
        },
      ),
    );
  });

  it('finds a dotted name whose every piece is a word of the result', () => {
    const text = ['import os', 'p = os.path.join(root, name)', ...Array.from({ length: 20 }, (_, i) => `x_${i}`)];
    const reaction = 'Use `os.path.join` here; `os.path.exists` is not called.';
    expect(focusOf(text.join('\n'), reaction).terms).toEqual(['os.path.join']);
    // The same when the reaction names so many that the result's words screen them first.
    const many = Array.from({ length: 30 }, (_, i) => `helper_${i}`).join(' ');
    expect(focusOf(text.join('\n'), `${reaction} ${many}`).terms).toEqual(['os.path.join']);
  });

  it('quotes the first 40 lines the reaction quotes, however many it quotes', () => {
    const file = Array.from({ length: 300 }, (_, i) => `    const value_${i} = compute(${i}, "argument");`);
    const quoted = focusOf(file.join('\n'), file.slice(100, 200).join('\n')).quoted;
    expect(quoted).toEqual(file.slice(100, 140).map((l) => l.trim()));
  });
});

describe('truncateFocused', () => {
  it('keeps the place a file was opened at, which a head+tail cut loses', () => {
    const view = fileView(1374, 1574);
    const focus = focusOf(view, '', 'open src/marshmallow/fields.py 1474');
    const plain = truncateHeadTail(view, 1500, 2000);
    const focused = cut(view, 1500, focus);
    expect(plain).not.toContain('1474:');
    expect(focused).toContain('1474:    statement_1474 = 1474');
    // The lines around it too, in order, and the view's first line (what it is).
    expect(focused).toMatch(/1465:[^\n]*\n1466:[\s\S]*1474:[\s\S]*1484:/);
    expect(focused.startsWith('1374:')).toBe(true);
    // And the tail keeps a share of the room (how a run ended).
    expect(focused.endsWith('1574:    statement_1574 = 1574')).toBe(true);
    expect(focused).toMatch(/\[\.\.\. \d+ lines truncated \.\.\.\]/);
    expect(focused.length).toBeLessThanOrEqual(1500);
  });

  it('keeps the lines the next message quotes (an edit of them)', () => {
    const log = Array.from({ length: 400 }, (_, i) =>
      i === 200 ? 'const retries = config.retries ?? 3; // the line to change' : `step ${i}: fine`,
    ).join('\n');
    const focus = focusOf(log, 'const retries = config.retries ?? 3; // the line to change');
    expect(cut(log, 800, focus)).toContain('const retries = config.retries ?? 3;');
    expect(truncateHeadTail(log, 800, 2000)).not.toContain('const retries');
  });

  it('leaves the tail a share of the room however many lines are pointed at', () => {
    const pad = '-'.repeat(100);
    const log = [
      ...Array.from({ length: 400 }, (_, i) => (i % 45 === 20 ? `case_${i} flaky_case ${pad}` : `case_${i} ok ${pad}`)),
      `summary: 9 failed, 391 passed ${pad}`,
    ].join('\n');
    const focused = cut(log, 4000, focusOf(log, 'Every `flaky_case` fails the same way.'));
    expect(focused).toContain('case_20 flaky_case');
    expect(focused.endsWith(`summary: 9 failed, 391 passed ${pad}`)).toBe(true);
  });

  it('is the plain head+tail cut without a focus, and leaves text within the limits alone', () => {
    const text = Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n');
    expect(cut(text, 900, NO_FOCUS)).toBe(truncateHeadTail(text, 900, 2000));
    expect(cut('short\ntext', 100, { terms: ['text'], quoted: [], lineNumbers: [] })).toBe('short\ntext');
  });

  it('keeps its limits and the order of the lines it keeps, whatever the focus (property)', () => {
    const arbLine = fc.oneof(
      fc.constantFrom('', 'ok', 'error: boom', 'value_a = 1', 'value_b = 2'),
      fc.string({ maxLength: 600 }).map((s) => s.replace(/\n/g, ' ')),
    );
    fc.assert(
      fc.property(
        fc.array(arbLine, { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 300, max: 6000 }),
        fc.integer({ min: 20, max: 400 }),
        fc.subarray(['value_a', 'value_b', 'error', 'boom']),
        (raw, maxChars, maxLines, terms) => {
          const lines = raw.map((l, i) => (i % 7 === 0 ? `${i + 1}: ${l}` : l));
          const text = lines.join('\n');
          const focus: Focus = { terms, quoted: ['value_b = 2'], lineNumbers: [8, 50] };
          const out = truncateFocused(text, maxChars, maxLines, focus, truncateHeadTail);
          if (text.length <= maxChars && lines.length <= maxLines) return out === text;
          expect(out.length).toBeLessThanOrEqual(maxChars);
          if (out === truncateHeadTail(text, maxChars, maxLines)) return true;
          // Every kept line is a line of the text (or its clipped start), in the text's order.
          let at = 0;
          for (const line of out.split('\n')) {
            if (line === '' || /^\[\.\.\. \d+ lines truncated \.\.\.\]$/.test(line)) continue;
            const head = line.endsWith('…') ? line.slice(0, -1) : line;
            const found = lines.findIndex((l, i) => i >= at && l.startsWith(head));
            expect(found).toBeGreaterThanOrEqual(0);
            at = found + 1;
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('stage 1 with a focus: the truncate stage reads the agent’s reaction', () => {
  it('keeps the lines the next assistant message acted on', () => {
    const rows = Array.from({ length: 6000 }, (_, i) =>
      i === 3000 ? 'ERROR retry_budget exhausted for shard-17' : `row ${i} ok`,
    ).join('\n');
    const msgs = [
      user('why does the job stop?'),
      calls('', toolCall('c1', 'bash', { command: 'cat job.log' })),
      result('c1', rows, 'bash'),
      calls(
        'The `retry_budget` runs out on shard-17.',
        toolCall('c2', 'bash', { command: 'grep -n retry_budget src' }),
      ),
      result('c2', 'src/retry.ts:12: retry_budget = 3', 'bash'),
      assistant('raising it'),
    ];
    const ctx = stageContext(msgs, 20_000);
    const out = applyBlockToEntries(ctx.entries, truncateToolOutputs(ctx)!, (m) => ctx.counter.message(m)).map(
      (e) => e.message,
    );
    expect(out[2]!.content).toMatch(/lines truncated/);
    expect(out[2]!.content).toContain('ERROR retry_budget exhausted for shard-17');
    expect(truncateHeadTail(rows, out[2]!.content.length, 2000)).not.toContain('retry_budget');
  });
});
