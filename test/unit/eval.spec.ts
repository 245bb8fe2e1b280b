import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ChatMessage } from '@ctxledger/context-engine';
import {
  asOneTurn,
  commitsOf,
  cutIndex,
  evaluateSession,
  evaluateText,
  extractFacts,
  failuresOf,
  type RetentionReport,
} from '../../tools/eval/retention';

import { SHARED_DATA_FILE, sharedDataText } from '../support/shared-data';

const root = resolve(__dirname, '../..');
const DATA = SHARED_DATA_FILE;

const call = (id: string, name: string, args: Record<string, unknown>, content = ''): ChatMessage => ({
  role: 'assistant',
  content,
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});
const result = (id: string, content: string): ChatMessage => ({ role: 'tool', content, toolCallId: id });

describe('eval: future-use retention', () => {
  it('cuts at about half, never between a call and its results', () => {
    const msgs: ChatMessage[] = [
      { role: 'user', content: 'go' },
      call('a', 'read', { path: 'a.ts' }),
      result('a', 'x'),
      {
        role: 'assistant',
        content: 'parallel',
        toolCalls: [1, 2, 3].map((i) => ({ id: `p${i}`, name: 'read', arguments: '{}' })),
      },
      result('p1', '1'),
      result('p2', '2'),
      result('p3', '3'),
      { role: 'assistant', content: 'done' },
    ];
    const cut = cutIndex(msgs);
    expect(cut).toBe(7);
    expect(msgs[cut]!.role).not.toBe('tool');
  });

  it("lists the failures of a span's calls by the line that says what failed, not its successes", () => {
    const failures = failuresOf([
      call('t', 'bash', { command: 'npm test' }),
      result('t', 'PASS a.spec.ts\nFAIL b.spec.ts\nTests:       2 failed, 10 passed, 12 total'),
      call('m', 'bash', { command: 'make' }),
      result('m', 'building…\nmake: *** [all] Error 2\nexit code: 2'),
      call('e', 'edit', { path: 'a.ts', oldText: 'x', newText: 'y' }),
      { role: 'tool', content: 'Could not find the exact text in a.ts', toolCallId: 'e', isError: true },
      call('ok', 'bash', { command: 'npm run build' }),
      result('ok', 'Built in 2.1s'),
      call('g', 'bash', { command: 'grep -rn foo src' }),
      result('g', 'exit code: 1'),
    ]);
    expect(failures).toEqual(['FAIL b.spec.ts', 'make: *** [all] Error 2', 'Could not find the exact text in a.ts']);
  });

  it("counts a failure kept when the view keeps its result, in the output's own words", () => {
    // The note's line joins the verdict and the assertion (`FAIL src/a.test.ts: sum › adds: expect(…`); the output
    // has them lines apart.
    const jest =
      'FAIL src/a.test.ts\n  ● sum › adds\n\n    expect(received).toBe(expected)\n\nTests: 1 failed, 2 passed';
    const session = {
      id: 's',
      messages: [
        { role: 'user', content: 'run the tests' } as ChatMessage,
        call('t', 'bash', { command: 'npx jest' }, 'Running them.'),
        result('t', jest),
        { role: 'assistant', content: 'One failed.' } as ChatMessage,
        { role: 'user', content: 'fix it' } as ChatMessage,
      ],
    };
    const report = evaluateSession(session, { budgetRatio: 1, minMessages: 3 }, 0.7);
    if ('skipped' in report) throw new Error(report.skipped);
    expect(failuresOf(session.messages)).toEqual(['FAIL src/a.test.ts: sum › adds: expect(received).toBe(expect']);
    expect({ failures: report.failures, kept: report.failuresKept }).toEqual({ failures: 1, kept: 1 });
  });

  it('counts a failure as kept only when the compacted first half still states it', () => {
    const ERRORS = [
      'ValueError: the size must be positive',
      "KeyError: 'tenant'",
      'ModuleNotFoundError: No module named yaml',
      'PermissionError: [Errno 13] Permission denied: /data/out.csv',
      'ZeroDivisionError: division by zero',
    ];
    const failing = (i: number): ChatMessage[] => [
      call(`t${i}`, 'bash', { command: `python step${i}.py` }, `Running step ${i}.`),
      result(`t${i}`, `${'output line\n'.repeat(400)}${ERRORS[i - 1]}`),
    ];
    const session = {
      id: 's',
      messages: [
        { role: 'user', content: 'run the steps' } as ChatMessage,
        ...[1, 2, 3, 4, 5].flatMap(failing),
        { role: 'assistant', content: 'Every step failed.' } as ChatMessage,
        { role: 'user', content: 'fix the sizes' } as ChatMessage,
      ],
    };
    // The cut leaves the last user message for the second half: the five failures are in the first.
    const roomy = evaluateSession(session, { budgetRatio: 1 }, 0.9);
    const tight = evaluateSession(session, { budgetRatio: 0.1 }, 0.9);
    if ('skipped' in roomy || 'skipped' in tight) throw new Error('not evaluated');
    expect(roomy.failures).toBe(5);
    expect(roomy.failuresKept).toBe(5);
    // Under a tight budget the failures go into notes: each must still say what failed.
    expect(tight.failures).toBe(5);
    expect({ kept: tight.failuresKept, missed: tight.failuresMissed }).toEqual({ kept: 5, missed: [] });
    expect(tight.tokensAfter).toBeLessThan(tight.tokensBefore / 5);
  });

  it('counts a launch still running at the cut as kept only when the compacted first half still names it', () => {
    const launch = (i: number): ChatMessage[] => [
      call(`b${i}`, 'bash', { command: `nohup python train${i}.py > logs/train${i}.log 2>&1 & echo $!` }, 'Starting.'),
      result(`b${i}`, `${4100 + i}`),
      call(`r${i}`, 'bash', { command: `python report${i}.py` }, `Reporting ${i}.`),
      result(`r${i}`, 'row\n'.repeat(300)),
    ];
    const session = {
      id: 's',
      messages: [
        { role: 'user', content: 'train the three models in the background, then report' } as ChatMessage,
        ...[1, 2, 3].flatMap(launch),
        // The first is collected within the first half: two are still running at the cut.
        call('k', 'bash', { command: 'kill 4101' }, 'Stopping the first.'),
        result('k', ''),
        { role: 'assistant', content: 'Two trainings are running.' } as ChatMessage,
        { role: 'user', content: 'how are they doing?' } as ChatMessage,
      ],
    };
    const roomy = evaluateSession(session, { budgetRatio: 1 }, 0.9);
    const tight = evaluateSession(session, { budgetRatio: 0.1 }, 0.9);
    if ('skipped' in roomy || 'skipped' in tight) throw new Error('not evaluated');
    expect({ launches: roomy.launches, kept: roomy.launchesKept }).toEqual({ launches: 2, kept: 2 });
    expect({ launches: tight.launches, kept: tight.launchesKept, missed: tight.launchesMissed }).toEqual({
      launches: 2,
      kept: 2,
      missed: [],
    });
    expect(tight.tokensAfter).toBeLessThan(tight.tokensBefore / 3);
  });

  it("reads the commits a span's git commands made from git's own line, not look-alike lines of other commands", () => {
    expect(
      commitsOf([
        call('g', 'bash', { command: 'git add -A && git commit -m "WP2: session"' }),
        result('g', '✅ checks passed\n[refactor 29d96ab] WP2: session\n 2 files changed'),
        call('r', 'bash', { command: 'git commit --allow-empty -m init' }),
        result('r', '[main (root-commit) 1a2b3c4] init'),
        call('w', 'bash', { command: 'node worker.js' }),
        result('w', '[worker 1234567] started'),
      ]),
    ).toEqual(['29d96ab', '1a2b3c4']);
  });

  it('extracts paths, identifiers, errors, tests, commands, quantities and URLs mechanically', () => {
    const facts = extractFacts([
      call('c', 'bash', { command: 'cd /repo && npm test -- src/app.spec.ts' }, 'Now `parseConfig()` fails.'),
      result(
        'c',
        'TypeError: x is undefined\n  at packages/core/src/config.ts:12\n✕ test_parses_empty (3 ms)\nsee https://example.com/docs/x.',
      ),
    ]);
    const by = (kind: string) => facts.filter((f) => f.kind === kind).map((f) => f.text);
    expect(by('command')).toEqual(['npm test -- src/app.spec.ts']);
    expect(by('identifier')).toEqual(['parseConfig()']);
    expect(by('path')).toEqual(['src/app.spec.ts', 'packages/core/src/config.ts']);
    expect(by('error')).toEqual(['TypeError']);
    expect(by('test')).toEqual(['test_parses_empty']);
    expect(by('quantity')).toEqual(['3 ms']);
    expect(by('url')).toEqual(['https://example.com/docs/x']);
  });

  it('scores the facts of the second half that the first half stated, against the compacted first half', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'fix the config loader' }];
    for (let i = 0; i < 8; i++) {
      messages.push(
        call(`r${i}`, 'read', { path: `packages/core/src/module${i}/loader${i}.ts` }),
        result(`r${i}`, `${'const filler = 1;\n'.repeat(200)}`),
      );
    }
    for (let i = 0; i < 6; i++)
      messages.push({ role: 'assistant', content: `step ${i}` }, { role: 'user', content: 'go on' });
    // The second half reuses two paths of the first half and names one it never saw.
    messages.push(
      call('e1', 'edit', { path: 'packages/core/src/module1/loader1.ts', oldText: 'a', newText: 'b' }),
      result('e1', 'ok'),
      call('e2', 'edit', { path: 'packages/core/src/module6/loader6.ts', oldText: 'a', newText: 'b' }),
      result('e2', 'ok'),
      call('e3', 'read', { path: 'packages/other/new-file.ts' }),
      result('e3', 'x'),
    );
    const session = { id: 's', messages };
    const full = evaluateSession(session, { budgetRatio: 1 });
    if ('skipped' in full) throw new Error(full.skipped);
    expect(full.facts).toBe(2);
    expect(full.retention).toBe(1);
    const tight = evaluateSession(session, { budgetRatio: 0.2 });
    if ('skipped' in tight) throw new Error(tight.skipped);
    // The reads' bodies are gone, their paths are kept (the working state of what was hidden).
    expect(tight.charsKept).toBeLessThan(0.35);
    expect(tight.retention).toBe(1);
    expect(tight.missed).toEqual([]);
  });

  describe('on ../shared/data/sessions.jsonl', () => {
    const text = sharedDataText();
    const reports = new Map<number, RetentionReport>();
    const at = (ratio: number): RetentionReport => {
      if (!reports.has(ratio)) reports.set(ratio, evaluateText(text, { budgetRatio: ratio }));
      return reports.get(ratio)!;
    };

    it.each([
      [0.5, 0.8],
      [0.25, 0.7],
    ])(
      'at budget ratio %s keeps at least %s of the reused facts within ratio + 0.1 of the characters',
      (ratio, min) => {
        const r = at(ratio);
        expect(r.sessions.length).toBeGreaterThanOrEqual(20);
        expect(r.totals.retention).toBeGreaterThanOrEqual(min);
        expect(r.totals.charsKept).toBeLessThanOrEqual(ratio + 0.1);
      },
    );

    it('several cuts average over the compaction cycle: one report row per session and cut', () => {
      const r = evaluateText(text, { budgetRatio: 0.5, cuts: [0.4, 0.6] });
      const ids = r.sessions.map((s) => s.id);
      expect(ids.filter((id) => id.endsWith('@0.4')).length).toBe(ids.filter((id) => id.endsWith('@0.6')).length);
      const one = r.sessions.find((s) => s.id.endsWith('@0.4'))!;
      const other = r.sessions.find((s) => s.id === one.id.replace('@0.4', '@0.6'))!;
      expect(other.cut).toBeGreaterThan(one.cut);
      expect(r.totals.retention).toBeGreaterThanOrEqual(0.7);
    });

    it('--one-turn keeps the first user message only: a single turn that only split-turn notes condense', () => {
      const r = evaluateText(text, { budgetRatio: 0.25, oneTurn: true });
      expect(r.sessions.length).toBeGreaterThan(0);
      expect(r.totals.retention).toBeGreaterThan(0.4);
      const one = asOneTurn({
        id: 'x',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
          { role: 'user', content: 'c' },
        ],
      });
      expect(one.messages.map((m) => m.content)).toEqual(['a', 'b']);
    });

    it('is deterministic', () => {
      expect(JSON.stringify(evaluateText(text, { budgetRatio: 0.5 }))).toBe(JSON.stringify(at(0.5)));
    });
  });

  it('the CLI prints the table and writes the JSON report; a usage error exits 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'eval-'));
    try {
      const out = join(dir, 'r.json');
      const run = spawnSync(
        process.execPath,
        [require.resolve('tsx/cli'), 'tools/eval/main.ts', '--input', DATA, '--budget-ratio', '0.5', '--out', out],
        { cwd: root, encoding: 'utf8' },
      );
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/retention \d+\.\d% of \d+ reused facts/);
      const report = JSON.parse(readFileSync(out, 'utf8')) as RetentionReport;
      expect(report.totals.facts).toBeGreaterThan(0);
      const bad = spawnSync(
        process.execPath,
        [require.resolve('tsx/cli'), 'tools/eval/main.ts', '--budget-ratio', '2'],
        {
          cwd: root,
          encoding: 'utf8',
        },
      );
      expect(bad.status).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
