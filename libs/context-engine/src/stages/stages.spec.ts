import type { CompactionBlock } from '../model/block';
import type { ChatMessage } from '../model/message';
import { applyBlockToEntries } from '../overlay';
import { assistant, calls, result, stageContext, system, text, toolCall, user, withEntries } from '../testing/fixtures';
import { callOutcome, failureOf } from '../summarizer/call-outcome';
import { toolActivity } from '../summarizer/tool-activity';
import { auditToolPairs } from '../turns';
import {
  classifyFileAccess,
  compactState,
  computeTailProtection,
  dedupeFileReads,
  keepWithinBudget,
  launchesKept,
  makeBlock,
  pruneToolOutputs,
  pruneThresholds,
  selectSummaryRange,
  shortNote,
  type NoteCut,
  slidingWindow,
  splitTurn,
  squeezeToBudget,
  truncateHeadTail,
  truncateToolOutputs,
  viewTokens,
  type StageContext,
} from '.';

const after = (ctx: StageContext, block: CompactionBlock): ChatMessage[] =>
  applyBlockToEntries(ctx.entries, block, (m) => ctx.counter.message(m)).map((e) => e.message);
const positions = (block: CompactionBlock | null) => block?.edits.map((e) => e.from) ?? [];

describe('stage 1: truncate huge tool outputs', () => {
  it('keeps head and tail with an omitted-lines notice', () => {
    const body = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n');
    const out = truncateHeadTail(body, 1_000_000, 2000);
    expect(out.startsWith('line 0\n')).toBe(true);
    expect(out.endsWith('line 4999')).toBe(true);
    expect(out).toContain('[... 3000 lines truncated ...]');
    expect(truncateHeadTail('short', 100, 10)).toBe('short');
  });

  it('truncates only the huge output, keeping the pair and making the view smaller', () => {
    const huge = Array.from({ length: 6000 }, (_, i) => `row ${i} value`).join('\n');
    const msgs = [
      user('run it'),
      calls('', toolCall('c1', 'bash', { command: 'seq' })),
      result('c1', huge, 'bash'),
      calls('', toolCall('c2', 'bash')),
      result('c2', 'ok', 'bash'),
      assistant('done'),
    ];
    const ctx = stageContext(msgs, 20_000);
    const block = truncateToolOutputs(ctx)!;
    expect(positions(block)).toEqual([2]);
    const out = after(ctx, block);
    expect(out[2]!.toolCallId).toBe('c1');
    expect(out[2]!.content).toMatch(/lines truncated/);
    expect(block.tokensSaved).toBe(block.tokensBefore - block.tokensAfter);
    expect(block.tokensSaved).toBeGreaterThan(0);
  });

  it('a failure whose line falls in the part cut ends the truncated output; one in the kept part does not', () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `row ${i} value`);
    const failing = [
      ...rows(3000),
      "src/main.ts(499,20): error TS2304: Cannot find name 'join'.",
      ...rows(3000),
      'npm error Lifecycle script `check` failed with error:',
      'npm error code 2',
    ].join('\n');
    const tailFailure = [...rows(6000), 'ValueError: the size must be positive'].join('\n');
    const msgs = [
      user('check it'),
      calls('', toolCall('c1', 'bash', { command: 'npm run check' })),
      result('c1', failing, 'bash'),
      calls('', toolCall('c2', 'bash', { command: 'python run.py' })),
      result('c2', tailFailure, 'bash'),
      assistant('both failed'),
    ];
    const ctx = stageContext(msgs, 20_000);
    const out = after(ctx, truncateToolOutputs(ctx)!);
    expect(out[2]!.content).toMatch(/lines truncated/);
    expect(
      out[2]!.content.endsWith(
        "\n[what failed, in the part cut: src/main.ts(499,20): error TS2304: Cannot find name 'join'.]",
      ),
    ).toBe(true);
    expect(callOutcome(toolActivity(toolCall('c1', 'bash', { command: 'npm run check' }), {}), out[2])).toEqual({
      ok: false,
      text: "error: src/main.ts(499,20): error TS2304: Cannot find name 'join'.",
    });
    expect(out[4]!.content.endsWith('\nValueError: the size must be positive')).toBe(true);
    expect(out[4]!.content).not.toContain('what failed');
  });

  it("cuts a harness's wrapped result as the output inside: Codex's JSON, OpenHands' ERROR line", () => {
    const rows = Array.from({ length: 6000 }, (_, i) => `test_${i} ... ok`);
    const log = [...rows, 'FAILED tests/test_x.py::test_y - assert 1 == 2', '1 failed, 5999 passed in 9.1s'].join('\n');
    const codex = JSON.stringify({ output: log, metadata: { exit_code: 1, duration_seconds: 9.3 } });
    const missing = `ERROR:\nInvalid \`path\` parameter: /w/big.py. ${'The path does not exist. '.repeat(4000)}`;
    const msgs = [
      user('test it'),
      calls('', toolCall('c1', 'shell', { command: ['bash', '-lc', 'pytest'] })),
      result('c1', codex, 'shell'),
      calls('', toolCall('c2', 'str_replace_editor', { command: 'view', path: '/w/big.py' })),
      result('c2', missing, 'str_replace_editor'),
      assistant('one test fails'),
    ];
    const ctx = stageContext(msgs, 20_000);
    const out = after(ctx, truncateToolOutputs(ctx)!);
    // Lines of the output (no JSON text cut in two), its failure and its exit status as a shell prints them.
    expect(out[2]!.content).toMatch(/^test_0 \.\.\. ok\ntest_1 \.\.\. ok\n/);
    expect(out[2]!.content).toMatch(/lines truncated/);
    expect(
      out[2]!.content.endsWith(
        'FAILED tests/test_x.py::test_y - assert 1 == 2\n1 failed, 5999 passed in 9.1s\nExit code: 1',
      ),
    ).toBe(true);
    const shell = toolActivity(toolCall('c1', 'shell', { command: ['bash', '-lc', 'pytest'] }), {});
    expect(callOutcome(shell, out[2]).ok).toBe(false);
    // A failure the wrapping told stays a failure once cut.
    expect(out[4]!.isError).toBe(true);
    expect(out[4]!.content.startsWith('Invalid `path` parameter: /w/big.py.')).toBe(true);
  });

  it('the last resort cutting the results of an active truncate block again, and harder, is a block of its own', () => {
    // Found by the invariants property (an auto compaction stopped over budget where a manual one went on): the
    // last resort's block over exactly the ranges of the active one had its id, so it was taken for it and dropped.
    const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} row ${i} value`).join('\n');
    const msgs = [
      user('read both'),
      calls('', toolCall('c1', 'bash', { command: 'cat a.log' }), toolCall('c2', 'bash', { command: 'cat b.log' })),
      result('c1', rows(6000, 'a'), 'bash'),
      result('c2', rows(6000, 'b'), 'bash'),
      assistant('read'),
      user('go on'),
      assistant('done'),
    ];
    const ctx = stageContext(msgs, 20_000);
    const first = truncateToolOutputs(ctx)!;
    expect(positions(first)).toEqual([2, 3]);
    const later = withEntries(
      { ...ctx, activeIds: [first.id] },
      applyBlockToEntries(ctx.entries, first, (m) => ctx.counter.message(m)),
    );
    const harder = truncateToolOutputs(later, true);
    expect(positions(harder)).toEqual([2, 3]);
    expect(harder!.id).not.toBe(first.id);
    expect(harder!.tokensAfter).toBeLessThan(first.tokensAfter);
    // The same block computed again keeps its id (a redelivery is still recognised).
    expect(truncateToolOutputs(later, true)!.id).toBe(harder!.id);
  });
});

describe('stage 2: prune old tool outputs (SCENARIOS #6, #7)', () => {
  const tenResults = (): ChatMessage[] => {
    const msgs: ChatMessage[] = [user('go')];
    for (let i = 1; i <= 10; i++)
      msgs.push(
        calls('', toolCall(`c${i}`, 'bash', { command: `step ${i}` })),
        result(`c${i}`, text(31_000, i), 'bash'),
      );
    msgs.push(assistant('all done'), user('thanks'));
    return msgs;
  };

  it('replaces exactly the 8 oldest and keeps the 2 newest verbatim', () => {
    const msgs = tenResults();
    const ctx = stageContext(msgs, 200_000, {
      prune: { protectTokens: 10_000, minimumSavings: 1000 },
      tail: { budgetRatio: 0.001 },
    });
    const block = pruneToolOutputs(ctx)!;
    expect(block.stage).toBe('prune');
    expect(positions(block)).toEqual([2, 4, 6, 8, 10, 12, 14, 16]);
    const out = after(ctx, block);
    expect(out[18]).toEqual(msgs[18]);
    expect(out[20]).toEqual(msgs[20]);
    expect(out[2]!.content).toMatch(/^\[Tool result cleared/);
    expect(block.tokensSaved).toBeGreaterThan(8 * 4000);
    expect(auditToolPairs(out).orphanResults).toEqual([]);
  });

  it('a pruned failure says what failed in its placeholder; a pruned success says nothing more', () => {
    const msgs = tenResults();
    const failing = `${text(31_000, 3)}\nsrc/main.ts(499,20): error TS2304: Cannot find name 'join'.\nnpm error Lifecycle script \`check\` failed\nnpm error code 2`;
    msgs[6] = result('c3', failing, 'bash');
    msgs[8] = result('c4', `${text(31_000, 4)}\nFAIL b.spec.ts\nTests:       2 failed, 10 passed, 12 total`, 'bash');
    const ctx = stageContext(msgs, 200_000, {
      prune: { protectTokens: 10_000, minimumSavings: 1000 },
      tail: { budgetRatio: 0.001 },
    });
    const out = after(ctx, pruneToolOutputs(ctx)!);
    expect(out[6]!.content).toMatch(/^\[Tool result cleared to save context: bash\(command=step 3\), \d+ chars; /);
    expect(out[6]!.content).toContain("error: src/main.ts(499,20): error TS2304: Cannot find name 'join'.]");
    expect(out[8]!.content).toMatch(/chars; error: FAIL b\.spec\.ts \(tests 2 failed, 10 passed, 12 total\)\]$/);
    expect(out[4]!.content).toMatch(/^\[Tool result cleared to save context: bash\(command=step 2\), \d+ chars\]$/);
  });

  it('a pruned commit keeps the line git printed for it (its hash), and reads back as that commit', () => {
    const msgs = tenResults();
    msgs[5] = calls('', toolCall('c3', 'bash', { command: 'git add -A && git commit -m "Add the parser"' }));
    msgs[6] = result('c3', `[main 1a2b3c4] Add the parser\n${' create mode 100644 src/a.ts\n'.repeat(1200)}`, 'bash');
    const ctx = stageContext(msgs, 200_000, {
      prune: { protectTokens: 10_000, minimumSavings: 1000 },
      tail: { budgetRatio: 0.001 },
    });
    const out = after(ctx, pruneToolOutputs(ctx)!);
    expect(out[6]!.content).toMatch(/, \d+ chars; kept: \[main 1a2b3c4\] Add the parser\]$/);
    const activity = toolActivity(msgs[5]!.toolCalls![0]!, {});
    expect(callOutcome(activity, out[6]!)).toEqual({ ok: true, text: 'ok: [main 1a2b3c4] Add the parser' });
    expect(failureOf(activity, out[6]!)).toBeUndefined();
  });

  it("keeps a background launch's result (its handles are in no other message), prunes the rest", () => {
    const msgs = tenResults();
    const launch = `Server started in the background.\nPID: 48213\nlogs: /tmp/dev-server.log\n${text(3000, 7)}`;
    msgs[8] = result('c4', launch, 'bash');
    const ctx = stageContext(msgs, 200_000, {
      prune: { protectTokens: 10_000, minimumSavings: 1000 },
      tail: { budgetRatio: 0.001 },
    });
    const block = pruneToolOutputs(ctx)!;
    expect(positions(block)).toEqual([2, 4, 6, 10, 12, 14, 16]);
    expect(after(ctx, block)[8]).toEqual(msgs[8]);
  });

  it('never prunes a protected tool', () => {
    const msgs = tenResults().map((m) =>
      m.role === 'tool' && m.toolCallId === 'c3' ? { ...m, toolName: 'skill' } : m,
    );
    const ctx = stageContext(msgs, 200_000, {
      prune: { protectTokens: 10_000, minimumSavings: 1000 },
      tail: { budgetRatio: 0.001 },
    });
    expect(positions(pruneToolOutputs(ctx))).not.toContain(6);
  });

  it('does nothing below the minimum savings', () => {
    const msgs = [
      user('q'),
      calls('', toolCall('c1', 'bash')),
      result('c1', 'short output', 'bash'),
      calls('', toolCall('c2', 'bash')),
      result('c2', 'x', 'bash'),
      assistant('ok'),
    ];
    expect(
      pruneToolOutputs(stageContext(msgs, 200_000, { prune: { protectTokens: 0, minimumSavings: 100_000 } })),
    ).toBeNull();
  });

  it('scales its thresholds to small budgets (fires on a 20k budget)', () => {
    const ctx = stageContext(tenResults(), 20_000, { tail: { budgetRatio: 0.01 } });
    expect(pruneToolOutputs(ctx)).not.toBeNull();
  });
});

describe('stage 3: dedupe file reads (SCENARIOS #8)', () => {
  const read = (id: string, path: string, extra: Record<string, unknown> = {}) =>
    calls('', toolCall(id, 'read', { path, ...extra }));
  const body = (n: number) => `export const x = ${n};\n${text(3000, n)}`;

  it('replaces the first two of three reads of one path by a pointer to the latest', () => {
    const msgs = [
      user('a'),
      read('r1', '/src/a.ts'),
      result('r1', body(1), 'read'),
      assistant('seen'),
      user('b'),
      read('r2', '/src/a.ts'),
      result('r2', body(2), 'read'),
      assistant('again'),
      user('c'),
      read('r3', '/src/a.ts'),
      result('r3', body(3), 'read'),
      assistant('third'),
      user('d'),
    ];
    const ctx = stageContext(msgs, 100_000);
    const block = dedupeFileReads(ctx)!;
    expect(positions(block)).toEqual([2, 6]);
    const out = after(ctx, block);
    expect(out[2]!.content).toContain('/src/a.ts');
    expect(out[2]!.content).toContain('r3');
    expect(out[10]).toEqual(msgs[10]);
    // Assistant text is never touched.
    expect(out.filter((m) => m.role === 'assistant')).toEqual(msgs.filter((m) => m.role === 'assistant'));
  });

  it('leaves reads of two different paths alone', () => {
    const msgs = [
      user('a'),
      read('r1', '/a.ts'),
      result('r1', body(1), 'read'),
      read('r2', '/b.ts'),
      result('r2', body(2), 'read'),
      assistant('ok'),
      user('b'),
    ];
    expect(dedupeFileReads(stageContext(msgs, 100_000))).toBeNull();
  });

  it('does not let a ranged read supersede a different range, but does the same range or a full read', () => {
    const msgs = [
      user('a'),
      read('r1', '/a.ts', { offset: 1, limit: 50 }),
      result('r1', body(1), 'read'),
      read('r2', '/a.ts', { offset: 100, limit: 50 }),
      result('r2', body(2), 'read'),
      assistant('ok'),
      user('b'),
    ];
    expect(dedupeFileReads(stageContext(msgs, 100_000))).toBeNull();
    const same = [
      ...msgs,
      read('r3', '/a.ts', { offset: 1, limit: 50 }),
      result('r3', body(3), 'read'),
      assistant('ok'),
      user('c'),
    ];
    expect(positions(dedupeFileReads(stageContext(same, 100_000)))).toEqual([2]);
    const full = [...msgs, read('r3', '/a.ts'), result('r3', body(3), 'read'), assistant('ok'), user('c')];
    expect(positions(dedupeFileReads(stageContext(full, 100_000)))).toEqual([2, 4]);
  });

  it('never dedupes a failed read, nor lets it supersede', () => {
    const msgs = [
      user('a'),
      read('r1', '/a.ts'),
      result('r1', 'Error: ENOENT: no such file', 'read'),
      read('r2', '/a.ts'),
      result('r2', body(2), 'read', true),
      assistant('ok'),
      user('b'),
    ];
    expect(dedupeFileReads(stageContext(msgs, 100_000))).toBeNull();
  });

  it('marks an earlier read stale when the file was edited in between', () => {
    const msgs = [
      user('a'),
      read('r1', '/a.ts'),
      result('r1', body(1), 'read'),
      calls('', toolCall('e1', 'edit', { path: '/a.ts', oldText: 'x', newText: 'y' })),
      result('e1', 'ok', 'edit'),
      read('r2', '/a.ts'),
      result('r2', body(2), 'read'),
      assistant('ok'),
      user('b'),
    ];
    const ctx = stageContext(msgs, 100_000);
    const out = after(ctx, dedupeFileReads(ctx)!);
    expect(out[2]!.content).toMatch(/stale/);
  });

  it('classifies from the call name and arguments only', () => {
    expect(classifyFileAccess(toolCall('x', 'Read', { file_path: '/f', offset: 10 }))).toEqual({
      kind: 'read',
      path: '/f',
      range: '{"offset":10}',
    });
    expect(classifyFileAccess(toolCall('x', 'str_replace_editor', { command: 'view', path: '/f' }))?.kind).toBe('read');
    expect(classifyFileAccess(toolCall('x', 'str_replace_editor', { command: 'str_replace', path: '/f' }))?.kind).toBe(
      'write',
    );
    expect(classifyFileAccess(toolCall('x', 'bash', { command: 'cat /f' }))).toBeUndefined();
    expect(classifyFileAccess({ name: 'read', arguments: 'not json' })).toBeUndefined();
  });
});

describe('tail protection (seed 001, SCENARIOS #14-#17)', () => {
  it('large tool results cannot starve the conversation: the floor of 6 conversational messages holds', () => {
    const msgs: ChatMessage[] = [user('start'), assistant('ok')];
    for (let i = 0; i < 10; i++)
      msgs.push(calls(`step ${i}`, toolCall(`t${i}`, 'bash')), result(`t${i}`, text(5000, i), 'bash'));
    msgs.push(user('Now run the tests'), assistant('Running'), user('Also check lint'));
    const ctx = stageContext(msgs, 200_000, { tail: { budgetRatio: 0.02 } });
    const p = ctx.protection;
    expect(msgs.length - p.tailStart).toBeGreaterThanOrEqual(3);
    // Every conversational message is in the verbatim set although ten big outputs sit between them…
    for (const i of [0, 1, 22, 23, 24]) expect(p.verbatim.has(i)).toBe(true);
    // …and the tool bodies the floor drags in are demoted, so the tail stays near its budget.
    expect(p.demote.length).toBeGreaterThan(0);
  });

  it('a tiny tail budget still keeps the floor and the latest ask last', () => {
    const msgs = Array.from({ length: 14 }, (_, i) => (i % 2 === 0 ? user(`question ${i}`) : assistant(`answer ${i}`)));
    const p = computeTailProtection(
      stageContext(msgs, 1000).entries,
      { budgetRatio: 0.01, toolResultCapTokens: 2000, conversationalFloor: 8, maxOverrun: 1.5 },
      1000,
    );
    expect(msgs.length - p.tailStart).toBeGreaterThanOrEqual(8);
    expect(p.lastUser).toBe(12);
  });

  it('the floor may not push the tail past 1.5× its budget: oversized tool bodies are demoted', () => {
    const msgs: ChatMessage[] = [user('go')];
    for (let i = 0; i < 10; i++)
      msgs.push(
        calls(`look ${i}`, toolCall(`t${i}`, 'bash')),
        result(`t${i}`, text(20_000, i), 'bash'),
        assistant(`note ${i}`),
      );
    msgs.push(user('summarize'));
    const ctx = stageContext(msgs, 50_000, { tail: { budgetRatio: 0.2 } });
    const p = ctx.protection;
    expect(p.demote.length).toBeGreaterThan(0);
    const block = truncateToolOutputs(ctx)!;
    const out = applyBlockToEntries(ctx.entries, block, (m) => ctx.counter.message(m));
    const tailTokens = out.slice(out.length - (msgs.length - p.tailStart)).reduce((s, e) => s + e.tokens, 0);
    expect(tailTokens).toBeLessThanOrEqual(1.5 * p.tailBudget * 1.1);
    // The conversational messages of the tail are all still there, verbatim.
    for (const i of p.verbatim) expect(out.map((e) => e.message)).toContainEqual(msgs[i]);
  });

  it('keeps the last assistant text reply even when a long run of tool calls follows it (#16)', () => {
    const msgs: ChatMessage[] = [user('task'), assistant('Here is my plan: A, B, C.')];
    for (let i = 0; i < 30; i++)
      msgs.push(calls('', toolCall(`t${i}`, 'bash')), result(`t${i}`, text(3000, i), 'bash'));
    const p = stageContext(msgs, 10_000).protection;
    expect(p.lastReply).toBe(1);
    expect(p.tailStart).toBeLessThanOrEqual(1);
  });

  it('the last user ask stays out of the summarized span (#14) and a synthetic banner is not taken for it', () => {
    const msgs: ChatMessage[] = [];
    for (let i = 0; i < 20; i++) msgs.push(user(`ask ${i}`), assistant(text(2000, i)));
    msgs.push(user('the real last ask'));
    for (let i = 0; i < 6; i++) msgs.push(calls('', toolCall(`t${i}`, 'bash')), result(`t${i}`, text(8000, i), 'bash'));
    const ctx = stageContext(msgs, 30_000);
    const sel = selectSummaryRange(ctx)!;
    expect(sel.end).toBeLessThan(40);
    expect(ctx.protection.lastUser).toBe(40);
  });
});

describe('stage 4: split-turn compression (seed 000, SCENARIOS #18)', () => {
  const oversized = (): ChatMessage[] => {
    const msgs: ChatMessage[] = [user('fix the bug')];
    for (let i = 1; i <= 6; i++)
      msgs.push(
        calls('', toolCall(`tc-${i}`, 'fs.read', { path: `src/file${i}.ts`, encoding: 'utf8' })),
        result(`tc-${i}`, text(5000, i), 'fs.read'),
      );
    return msgs;
  };

  it('keeps the newest 3 pairs verbatim and collapses the 3 older into one non-empty note (the seed note)', () => {
    const msgs = oversized();
    const ctx = stageContext(msgs, 5000, { inTurnDigest: 'seed' });
    const block = splitTurn(ctx)!;
    const out = after(ctx, block);
    expect(out[0]).toEqual(msgs[0]);
    expect(out[1]!.content).toMatch(/^\[Turn prefix compressed — 3 earlier tool call\(s\)\]/);
    expect(out[1]!.content).toContain('fs.read(path=src/file1.ts, encoding=utf8) → completed');
    expect(out.slice(2).flatMap((m) => m.toolCalls?.map((c) => c.id) ?? [])).toEqual(['tc-4', 'tc-5', 'tc-6']);
    expect(out.slice(2)).toEqual(msgs.slice(7));
    expect(auditToolPairs(out)).toEqual({ orphanResults: [], unansweredCalls: [], duplicateResults: [] });
  });

  it('the rich note: whole file paths, outcomes read from results, intent, repeats collapsed, a working state', () => {
    const long =
      '/home/user/projects/some-very-long-workspace-name/worktrees/feature-branch/packages/coding-agent/src/theme';
    const msgs: ChatMessage[] = [
      user('fix the theme loader'),
      calls('I will read the loader first.', toolCall('c1', 'read', { path: `${long}/theme-loader.ts` })),
      result('c1', `${'line\n'.repeat(119)}end`, 'read'),
      calls('', toolCall('c2', 'bash', { command: 'npm test', timeout: 30, description: 'run tests' })),
      result('c2', `FAIL src/theme.test.ts\nTests:       2 failed, 10 passed, 12 total\n${text(3000, 2)}`, 'bash'),
      calls('', toolCall('c3', 'bash', { command: 'npm run build' })),
      result('c3', 'error TS2345: Argument of type string is not assignable', 'bash'),
      calls('', toolCall('c4', 'bash', { command: 'npm run build' })),
      result('c4', 'error TS2345: Argument of type string is not assignable', 'bash'),
      calls(
        '',
        toolCall('c5', 'edit', {
          path: 'src/theme.ts',
          oldText: 'a'.repeat(300),
          newText: 'b'.repeat(320),
          replace_all: false,
        }),
      ),
      result('c5', 'Successfully replaced text in src/theme.ts.', 'edit'),
    ];
    for (let i = 6; i <= 8; i++)
      msgs.push(calls('', toolCall(`c${i}`, 'read', { path: `src/f${i}.ts` })), result(`c${i}`, text(5000, i), 'read'));
    const ctx = stageContext(msgs, 6000);
    const note = after(ctx, splitTurn(ctx)!)[1]!.content;
    expect(note).toMatch(/^\[Turn prefix compressed — 5 earlier tool call\(s\)\]/);
    // The file name is never cut; a long path keeps its last segments.
    expect(note).toContain('read /home/…/src/theme/theme-loader.ts → 120 lines');
    expect(note).toContain('intent: I will read the loader first.');
    expect(note).toContain('bash `npm test` → error: FAIL src/theme.test.ts (tests 2 failed, 10 passed, 12 total)');
    expect(note).toContain(
      'bash `npm run build` → error: error TS2345: Argument of type string is not assignable (×2)',
    );
    expect(note).toContain(
      'edit src/theme.ts (oldText: 300 chars, newText: 320 chars) → ok: Successfully replaced text in src/theme.ts.',
    );
    expect(note).not.toMatch(/completed|replace_all|timeout|description/);
    // The working state: files with their actions, commands with their last outcome, errors unresolved.
    expect(note).toContain('# Working state');
    expect(note).toContain('- src/theme.ts (edit)');
    expect(note).toContain('`npm run build` ×2 → last: error: error TS2345');
    expect(note).toMatch(/Errors seen[\s\S]*npm run build — error TS2345[^\n]*\[unresolved\]/);
  });

  it('a note over an earlier note keeps its working state and steps (blocks stack without losing them)', () => {
    const msgs: ChatMessage[] = [user('port the parser')];
    for (let i = 1; i <= 10; i++)
      msgs.push(
        calls('', toolCall(`c${i}`, 'read', { path: `src/mod${i}/parser${i}.ts` })),
        result(`c${i}`, text(4000, i), 'read'),
      );
    const first = stageContext(msgs.slice(0, 13), 6000);
    const b1 = splitTurn(first)!;
    expect(b1.range).toEqual({ from: 1, to: 6 });
    const later = stageContext(msgs, 6000);
    const entries = applyBlockToEntries(later.entries, b1, (m) => later.counter.message(m));
    const ctx = withEntries(later, entries);
    const note = after(ctx, splitTurn(ctx)!).find((m) => m.content.startsWith('[Turn prefix'))!.content;
    expect(note).toMatch(/— 7 earlier tool call/);
    for (let i = 1; i <= 7; i++) expect(note).toContain(`src/mod${i}/parser${i}.ts (read)`);
  });

  it("reads a tool result the view deduplicated as its original (a read's real length)", () => {
    const msgs: ChatMessage[] = [user('port the parser')];
    for (let i = 1; i <= 10; i++)
      msgs.push(
        calls('', toolCall(`c${i}`, 'read', { path: `src/mod${i}/parser${i}.ts` })),
        result(`c${i}`, Array.from({ length: 40 }, (_, k) => `line ${k} of ${i} ${'x'.repeat(80)}`).join('\n'), 'read'),
      );
    const plain = stageContext(msgs, 6000);
    // The reads of mod1 and mod2 as the dedupe stage left them in the view: a pointer to a later read.
    const entries = plain.entries.map((e) =>
      e.from === 2 || e.from === 4
        ? {
            ...e,
            stage: 'dedupe' as const,
            blockId: `b${e.from}`,
            message: { ...e.message, content: '[File: duplicate read — refer to the later read below]' },
          }
        : e,
    );
    const ctx = withEntries(plain, entries);
    const note = after(ctx, splitTurn(ctx)!).find((m) => m.content.startsWith('[Turn prefix'))!.content;
    expect(note).toContain('read src/mod1/parser1.ts → 40 lines');
    expect(note).toContain('read src/mod2/parser2.ts → 40 lines');
  });

  it('counts the calls of an earlier note the squeeze shortened (its working state still carries them)', () => {
    const msgs: ChatMessage[] = [user('port the parser')];
    for (let i = 1; i <= 10; i++)
      msgs.push(
        calls('', toolCall(`c${i}`, 'bash', { command: `python check.py mod${i}` })),
        result(`c${i}`, text(4000, i), 'bash'),
      );
    const first = stageContext(msgs.slice(0, 13), 6000);
    const b1 = splitTurn(first)!;
    const later = stageContext(msgs, 6000);
    // keep-within-budget's last resort: the note cut to its header, working state and newest steps.
    const entries = applyBlockToEntries(later.entries, b1, (m) => later.counter.message(m)).map((e) =>
      e.blockId === b1.id
        ? { ...e, stage: 'keep-within-budget' as const, message: system(shortNote(e.message.content, 'state')) }
        : e,
    );
    const ctx = withEntries(later, entries);
    const note = after(ctx, splitTurn(ctx)!).find((m) => m.content.startsWith('[Turn prefix'))!.content;
    expect(note).toMatch(/^\[Turn prefix compressed — 7 earlier tool call\(s\)\]/);
    for (let i = 1; i <= 7; i++) expect(note).toContain(`python check.py mod${i}`);
  });

  it('does nothing when the turn fits or has at most 3 pairs', () => {
    expect(splitTurn(stageContext(oversized(), 200_000))).toBeNull();
    expect(splitTurn(stageContext(oversized().slice(0, 7), 1000))).toBeNull();
  });

  it('never elides the unconsumed result of the in-flight call', () => {
    const msgs = [...oversized(), calls('', toolCall('tc-7', 'bash', { command: 'npm test' }))];
    const ctx = stageContext(msgs, 5000);
    const out = after(ctx, splitTurn(ctx)!);
    expect(out[out.length - 1]).toEqual(msgs[msgs.length - 1]);
    expect(out.flatMap((m) => m.toolCalls?.map((c) => c.id) ?? [])).toEqual(['tc-5', 'tc-6', 'tc-7']);
  });
});

describe('stage 6: sliding window (seed 002, SCENARIOS #19, #20)', () => {
  const chat = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      i % 2 === 0 ? user(`u${i} ${text(200, i)}`) : assistant(`a${i} ${text(200, i)}`),
    );

  it('keeps the first exchange, hides an even count, inserts one marker: 20 → 13', () => {
    const msgs = chat(20);
    const ctx = stageContext(msgs, 100_000);
    const out = after(ctx, slidingWindow(ctx, { fraction: 0.5 })!);
    expect(out).toHaveLength(13);
    expect(out.slice(0, 2)).toEqual(msgs.slice(0, 2));
    expect(out[2]!.content).toMatch(/^\[Earlier conversation history was truncated/);
    for (let i = 1; i < out.length; i++)
      expect(out[i]!.role === out[i - 1]!.role && out[i]!.role !== 'tool').toBe(false);
    expect(out.slice(3)).toEqual(msgs.slice(10));
  });

  it('#20 (Roo: 5 messages, fraction 0.5 → 2 hidden, 6 stored): an even count, whole turns, one marker, non-destructive', () => {
    // Roo keeps only the first message; we keep the first exchange, so 0.5 of the 3 messages after it
    // rounds down to an even 0 (nothing hidden), and fraction 1 hides the one whole turn Roo hides: 2.
    const msgs = chat(5);
    const ctx = stageContext(msgs, 100_000);
    expect(slidingWindow(ctx, { fraction: 0.5 })).toBeNull();
    const block = slidingWindow(ctx, { fraction: 1 })!;
    expect(block.edits).toHaveLength(1);
    const edit = block.edits[0]!;
    expect(edit.to - edit.from + 1).toBe(2);
    expect(edit.replacement).toHaveLength(1);
    // Stored: the 5 originals stay (the view entries are untouched) + 1 marker = 6.
    expect(ctx.entries.map((e) => e.message)).toEqual(msgs);
    expect(msgs.length + edit.replacement.length).toBe(6);
    const out = after(ctx, block);
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'system', 'user']);
    expect(out[out.length - 1]).toEqual(msgs[4]);
  });

  it('#20 as a property: every size and fraction hides an even count of whole turns, ≤ 1 marker, no same-role neighbours, never the last turn', () => {
    for (let n = 2; n <= 14; n++) {
      for (const fraction of [0.1, 0.25, 0.3, 0.5, 0.75, 1]) {
        const msgs = chat(n);
        const ctx = stageContext(msgs, 100_000);
        const block = slidingWindow(ctx, { fraction });
        if (!block) continue;
        const hidden = block.edits.reduce((a, e) => a + e.to - e.from + 1, 0);
        expect(hidden % 2).toBe(0);
        expect(hidden).toBeLessThanOrEqual(Math.floor((n - 2) * fraction));
        const out = after(ctx, block);
        expect(out.filter((m) => m.role === 'system')).toHaveLength(1);
        for (let i = 1; i < out.length; i++) expect(out[i]!.role === out[i - 1]!.role).toBe(false);
        expect(out[out.length - 1]).toEqual(msgs[n - 1]);
        expect(msgs[block.edits[0]!.to + 1]!.role).toBe('user');
      }
    }
    // Roo's "fraction 1 on 4 → 2 hidden": ours never hides the current turn, and 4 messages are the first exchange and it.
    expect(slidingWindow(stageContext(chat(4), 100_000), { fraction: 1 })).toBeNull();
  });

  it('hides nothing when the fraction rounds to less than a turn', () => {
    const ctx = stageContext(chat(7), 100_000);
    expect(slidingWindow(ctx, { fraction: 0.3 })).toBeNull();
  });

  it('in target mode hides the fewest oldest whole turns and never the protected tail', () => {
    const msgs = chat(40);
    const ctx = stageContext(msgs, 3000);
    const block = slidingWindow(ctx)!;
    const out = after(ctx, block);
    expect(viewTokens(ctx.entries, ctx.counter)).toBeGreaterThan(ctx.targetTokens);
    expect(out[out.length - 1]).toEqual(msgs[39]);
    expect(block.edits[0]!.from).toBe(2);
    expect(msgs[block.edits[0]!.to + 1]!.role).toBe('user');
    expect(block.edits[0]!.to + 1).toBeLessThanOrEqual(ctx.protection.tailStart);
  });
});

describe('stage 7: keep within budget', () => {
  it('keeps the pinned system head and the newest whole turns, turn-safe', () => {
    const msgs: ChatMessage[] = [system('you are an agent')];
    for (let i = 0; i < 10; i++)
      msgs.push(
        user(`q${i}`),
        calls('', toolCall(`c${i}`, 'bash')),
        result(`c${i}`, text(2000, i), 'bash'),
        assistant(`a${i}`),
      );
    const ctx = stageContext(msgs, 3000);
    const out = after(ctx, keepWithinBudget(ctx)!);
    expect(out[0]).toEqual(msgs[0]);
    expect(out[1]!.content).toMatch(/^\[Context compacted/);
    expect(out[2]!.role).toBe('user');
    expect(auditToolPairs(out).orphanResults).toEqual([]);
    expect(out[out.length - 1]).toEqual(msgs[msgs.length - 1]);
  });
});

describe('SCENARIOS #30: budget-relative scopes', () => {
  // Three loops (user → tool call → result → reply) of the same raw size; the prune scope (the newest
  // protected output) is a share of the history budget, not a fixed 40k.
  const loops = (): ChatMessage[] => {
    const msgs: ChatMessage[] = [];
    for (let k = 0; k < 3; k++)
      msgs.push(
        user(`loop ${k}`),
        calls('', toolCall(`l${k}`, 'bash', { command: `run ${k}` })),
        result(`l${k}`, text(6000, k), 'bash'),
        assistant(`done ${k}`),
      );
    return msgs;
  };

  it('the scope follows the budget: just above half a loop, one loop, two loops → 2, 1, 0 older loops pruned', () => {
    const msgs = loops();
    const base = stageContext(msgs, 100_000);
    const loopOutput = base.entries[2]!.tokens;
    const budgetFor = (outputs: number) => Math.ceil((outputs * loopOutput + 10) / base.policy.prune.protectRatio);
    for (const [outputs, prunedLoops] of [
      [0.5, [0, 1]],
      [1, [0]],
      [2, []],
    ] as const) {
      const ctx = stageContext(msgs, budgetFor(outputs), { prune: { minimumSavingsRatio: 0 } });
      // The walk keeps a result while the output seen so far (newest first) is under the scope.
      expect(pruneThresholds(ctx).protectTokens).toBeGreaterThan(outputs * loopOutput);
      expect(pruneThresholds(ctx).protectTokens).toBeLessThan(outputs * loopOutput + 50);
      const block = pruneToolOutputs(ctx);
      expect(positions(block)).toEqual(prunedLoops.map((k) => 4 * k + 2));
      if (!block) continue;
      const out = after(ctx, block);
      expect(auditToolPairs(out)).toEqual({ orphanResults: [], unansweredCalls: [], duplicateResults: [] });
      expect(out.filter((m) => m.role !== 'tool')).toEqual(msgs.filter((m) => m.role !== 'tool'));
      expect(
        viewTokens(ctx.entries, ctx.counter) -
          viewTokens(
            applyBlockToEntries(ctx.entries, block, (m) => ctx.counter.message(m)),
            ctx.counter,
          ),
      ).toBe(block.tokensSaved);
    }
  });
});

describe('last resort: squeeze to the budget when the verbatim minimum fits', () => {
  it('cuts answered tool bodies of the current turn, keeps the protected messages and the pairs', () => {
    const msgs = [
      user('search the web'),
      calls('', toolCall('w1', 'WebSearch', { query: 'thai curry' })),
      result('w1', text(1200, 3), 'WebSearch'),
      assistant(`the answer ${text(600, 4)}`),
    ];
    const full = stageContext(msgs, 100_000);
    const budget = viewTokens(full.entries, full.counter) - 100;
    const ctx = stageContext(msgs, budget, { tail: { maxOverrun: 100 } });
    const block = squeezeToBudget(ctx)!;
    const out = after(ctx, block);
    expect(
      viewTokens(
        applyBlockToEntries(ctx.entries, block, (m) => ctx.counter.message(m)),
        ctx.counter,
      ),
    ).toBeLessThanOrEqual(ctx.budget.historyBudget);
    expect([out[0], out[1], out[3]]).toEqual([msgs[0], msgs[1], msgs[3]]);
    expect(out[2]!.content).toMatch(/chars omitted to fit the context window\]$/);
    expect(auditToolPairs(out)).toEqual({ orphanResults: [], unansweredCalls: [], duplicateResults: [] });
    expect(squeezeToBudget(stageContext(msgs, 100_000))).toBeNull();
  });

  it('a marker it shortens keeps the task and its launches while that fits, its launches alone only when that does', () => {
    const msgs: ChatMessage[] = [
      user('port the parser to the new grammar and keep the old one for reference'),
      calls('', toolCall('t1', 'Task', { description: 'audit the lexer', prompt: 'x', run_in_background: true })),
      result('t1', 'Async agent launched successfully.\nagentId: a1b2c3d (internal ID)', 'Task'),
    ];
    for (let i = 1; i <= 6; i++)
      msgs.push(
        calls('', toolCall(`c${i}`, 'bash', { command: `python port.py mod${i}` })),
        result(`c${i}`, text(1500, i), 'bash'),
      );
    msgs.push(assistant(`ported ${text(100, 8)}`));
    for (let k = 0; k < 4; k++) msgs.push(user(`check module ${k}`), assistant(`module ${k} is fine`));
    msgs.push(user(`now the printer ${text(300, 9)}`), assistant(text(900, 10)));
    const base = stageContext(msgs, 1500);
    const marker = keepWithinBudget(base)!;
    const entries = applyBlockToEntries(base.entries, marker, (m) => base.counter.message(m));
    const first = entries[0]!.message.content;
    expect(first).toMatch(/^\[Context compacted: \d+ messages removed/);
    expect(first).toContain('port the parser');
    const size = viewTokens(entries, base.counter);
    const squeezedAt = (budget: number) => {
      const ctx = withEntries(stageContext(msgs, budget, { tail: { maxOverrun: 100 } }), entries);
      const block = squeezeToBudget(ctx);
      return block ? after(ctx, block)[0]!.content : first;
    };
    const compact = base.counter.message(system(`[Context compacted]${compactState(first)}`));
    // (Was cut to its launches at once: the task gone while a few lines of it fitted.)
    const roomy = squeezedAt(size - (entries[0]!.tokens - compact));
    expect(roomy).toMatch(/^\[Context compacted\]\n# Working state/);
    expect(roomy).toContain('port the parser');
    expect(roomy).toContain('agentId a1b2c3d');
    const launches = base.counter.message(system(`[Context compacted]${launchesKept(first)}`));
    const tight = squeezedAt(size - (entries[0]!.tokens - launches) + Math.floor((compact - launches) / 2));
    expect(tight).not.toContain('port the parser');
    expect(tight).toContain('agentId a1b2c3d');
  });

  it('a squeezed body whose failure was on its last line still states it', () => {
    const log = `${text(1200, 5)}\nTypeError: integer argument expected, got float`;
    const msgs = [
      user('decrypt it'),
      calls('', toolCall('p1', 'bash', { command: 'python solve.py' })),
      result('p1', log, 'bash'),
      assistant(`the cast is wrong ${text(600, 4)}`),
    ];
    const full = stageContext(msgs, 100_000);
    const ctx = stageContext(msgs, viewTokens(full.entries, full.counter) - 100, { tail: { maxOverrun: 100 } });
    const out = after(ctx, squeezeToBudget(ctx)!);
    expect(out[2]!.content).toMatch(/chars omitted to fit the context window\]\n/);
    expect(
      out[2]!.content.endsWith('[what failed, in the part cut: TypeError: integer argument expected, got float]'),
    ).toBe(true);
  });

  it('a squeezed launch result still names what runs: the lines of its id and output file, after the cut', () => {
    const report = [
      'Async agent launched successfully.',
      `agentId: a9cad17 (internal ID - do not mention to user. ${text(400, 2)})`,
      `output_file: /private/tmp/claude/tasks/a9cad17.output`,
      text(900, 3),
    ].join('\n');
    const msgs = [
      user('write the poems in the background'),
      calls('', toolCall('t1', 'Task', { description: 'Poem about green curry', run_in_background: true })),
      result('t1', report, 'Task'),
      assistant(`while it runs ${text(600, 4)}`),
    ];
    const full = stageContext(msgs, 100_000);
    const ctx = stageContext(msgs, viewTokens(full.entries, full.counter) - 100, { tail: { maxOverrun: 100 } });
    const out = after(ctx, squeezeToBudget(ctx)!);
    const lines = out[2]!.content.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'Async agent launched successfully.',
      expect.stringMatching(/^agentId: a9cad17 /),
      expect.stringMatching(/chars omitted to fit the context window\]$/),
    ]);
    expect(lines.slice(3)).toEqual(['output_file: /private/tmp/claude/tasks/a9cad17.output']);
  });

  it('a squeezed commit keeps the line git printed for it (its hash), after the cut', () => {
    const hook = `> tsc --noEmit\n${text(1500, 8)}\n✅ All pre-commit checks passed!`;
    const out = `${hook}\n[refactor 3f30550] WP1: Create bash-executor.ts\n 3 files changed, 185 insertions(+)`;
    const msgs = [
      user('commit the work package'),
      calls('', toolCall('g1', 'bash', { command: 'git add -A && git commit -m "WP1: Create bash-executor.ts"' })),
      result('g1', out, 'bash'),
      assistant(`committed ${text(600, 4)}`),
    ];
    const full = stageContext(msgs, 100_000);
    const ctx = stageContext(msgs, viewTokens(full.entries, full.counter) - 100, { tail: { maxOverrun: 100 } });
    const squeezed = after(ctx, squeezeToBudget(ctx)!)[2]!.content;
    expect(squeezed).toMatch(
      /chars omitted to fit the context window\]\n\[refactor 3f30550\] WP1: Create bash-executor\.ts$/,
    );
    expect(squeezed.length).toBeLessThan(out.length / 4);
  });

  /** One long turn of `n` edits of `src/m<i>/index.ts`, each with a long intent; `results(i)` answers edit i. */
  const turnOfEdits = (n: number, results: (i: number) => string = () => 'ok') => {
    const msgs: ChatMessage[] = [user('refactor the modules')];
    for (let i = 1; i <= n; i++)
      msgs.push(
        calls(
          `step ${i}: ${text(200, i)}`,
          toolCall(`c${i}`, 'edit', { path: `src/m${i}/index.ts`, oldText: 'a', newText: 'b' }),
        ),
        result(`c${i}`, results(i), 'edit'),
      );
    msgs.push(assistant(`done ${text(300, 99)}`));
    return msgs;
  };

  /** One long turn of twelve edits whose older ten a split-turn note replaces. */
  const noteOfTwelveEdits = () => {
    const msgs = turnOfEdits(12);
    const base = stageContext(msgs, 4000);
    const note = splitTurn(base, 1, true)!;
    const entries = applyBlockToEntries(base.entries, note, (m) => base.counter.message(m));
    return { msgs, base, note, entries };
  };

  it("shortens a split-turn note's working state and steps only when that is what makes the view fit", () => {
    const { msgs, base, note, entries } = noteOfTwelveEdits();
    const size = viewTokens(entries, base.counter);
    const noteTokens = entries.find((e) => e.blockId === note.id)!.tokens;
    const at = (budget: number) => {
      const c = stageContext(msgs, budget, { tail: { maxOverrun: 100 } });
      const ctx = withEntries(c, entries);
      const block = squeezeToBudget(ctx);
      const view = block ? after(ctx, block) : entries.map((e) => e.message);
      return { block, view, ctx, note: view.find((m) => m.content.startsWith('[Turn prefix'))!.content };
    };
    // Shrinking the note makes it fit: it keeps its header and newest steps.
    const fits = at(size - Math.floor(noteTokens / 3));
    expect(fits.block).not.toBeNull();
    expect(
      viewTokens(
        applyBlockToEntries(entries, fits.block!, (m) => fits.ctx.counter.message(m)),
        fits.ctx.counter,
      ),
    ).toBeLessThanOrEqual(fits.ctx.budget.historyBudget);
    expect(fits.note).toMatch(/^\[Turn prefix compressed/);
    expect(fits.note).toContain('src/m11/index.ts');
    // Nothing makes it fit: the note keeps what it knows (the response says why the history does not fit).
    const hopeless = at(Math.floor(size / 4));
    expect(hopeless.note).toContain('# Working state');
    expect(hopeless.note).toContain('src/m1/index.ts (edit)');
  });

  it('a note too large with its whole working state keeps the most telling lines of it, not only its steps', () => {
    const { msgs, base, note, entries } = noteOfTwelveEdits();
    const entry = entries.find((e) => e.blockId === note.id)!;
    const tokens = (keep: NoteCut) =>
      base.counter.message({ role: 'system', content: shortNote(entry.message.content, keep) });
    expect(tokens('compact')).toBeLessThan(tokens('state'));
    // A budget the note fits cut to its compact state, not with its whole state.
    const c = stageContext(msgs, viewTokens(entries, base.counter) - (entry.tokens - tokens('compact')), {
      tail: { maxOverrun: 100 },
    });
    const ctx = withEntries(c, entries);
    const block = squeezeToBudget(ctx)!;
    const squeezed = after(ctx, block).find((m) => m.content.startsWith('[Turn prefix'))!.content;
    expect(squeezed).toBe(shortNote(entry.message.content, 'compact'));
    expect(squeezed).toContain('# Working state');
    expect(squeezed).toMatch(/src\/m\d+\/index\.ts \(edit\)/);
    expect(squeezed).not.toContain('intent:');
  });

  it('a note built over a note the squeeze cut reads the calls of the cut note from the original messages', () => {
    // Fourteen edits: a note stands for the first ten, the squeeze cuts it to three steps, the turn goes on.
    const msgs = turnOfEdits(14, (i) => (i === 2 ? 'Error: oldText not found in src/m2/index.ts' : 'ok'));
    const first = stageContext(msgs.slice(0, 25), 4000);
    const note = splitTurn(first, 1, true)!;
    const [edit] = note.edits;
    const ctx = stageContext(msgs, 4000);
    const noted = applyBlockToEntries(ctx.entries, note, (m) => ctx.counter.message(m));
    const bare = shortNote(edit!.replacement[0]!.content, 'bare');
    expect(bare).not.toContain('src/m1/index.ts'); // what stacking on the cut note could pass on
    const cut = makeBlock({ ...ctx, entries: noted }, 'keep-within-budget', [
      { from: edit!.from, to: edit!.to, replacement: [{ role: 'system', content: bare }] },
    ])!;
    const entries = applyBlockToEntries(noted, cut, (m) => ctx.counter.message(m));
    const later = withEntries(ctx, entries);
    const stacked = splitTurn(later, 1, true)!;
    const content = stacked.edits[0]!.replacement[0]!.content;
    expect(stacked.edits[0]!.from).toBe(edit!.from);
    expect(content).toContain('src/m1/index.ts (edit)');
    expect(content).toContain('src/m13/index.ts (edit)');
    expect(content).toMatch(/oldText not found in src\/m2\/index\.ts/);
    expect(content).toMatch(/^\[Turn prefix compressed — 13 earlier tool call\(s\)\]/);
  });

  it('never cuts an unconsumed result and never collapses a call still waiting for its results', () => {
    const msgs = [user('go'), calls('', toolCall('x', 'bash')), result('x', text(3000, 1), 'bash')];
    const ctx = stageContext(msgs, 200);
    expect(squeezeToBudget(ctx)).toBeNull();
    expect(splitTurn(ctx, 0, true)).toBeNull();
  });
});
