import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  counterFor,
  estimateMessagesTokens,
  findToolPairViolations,
  type ChatMessage,
} from '@ctxledger/context-engine';
import { parseTranscripts } from '../../tools/replay/input';
import {
  floorPositions,
  inferProvider,
  replaySession,
  replayText,
  startSession,
  type ReplayReport,
} from '../../tools/replay/replay';

const root = resolve(__dirname, '../..');
// The developer transcripts sit beside the repository (as in CI); a missing file fails the suite, never skips it.
const DATA = resolve(root, '../shared/data/sessions.jsonl');
const data = readFileSync(DATA, 'utf8');

describe('replay on ../shared/data/sessions.jsonl', () => {
  const reports = new Map<number, ReplayReport>();
  const at = (ratio: number): ReplayReport => {
    if (!reports.has(ratio)) reports.set(ratio, replayText(data, { budgetRatio: ratio }));
    return reports.get(ratio)!;
  };

  describe.each([0.5, 0.25])('at budget ratio %s', (ratio) => {
    it('replays all 32 sessions without an error', () => {
      const r = at(ratio);
      expect(r.errors).toEqual([]);
      expect(r.sessions).toHaveLength(32);
      expect(r.totals.tokensAfter).toBeLessThan(r.totals.tokensBefore);
    });

    it('every session fits its budget or says why', () => {
      for (const s of at(ratio).sessions) {
        const expected = Math.floor(ratio * s.tokensBefore);
        expect({ id: s.id, budget: s.budget }).toEqual({ id: s.id, budget: expected });
        if (s.fits) expect({ id: s.id, over: s.tokensAfter > s.budget }).toEqual({ id: s.id, over: false });
        else
          expect({ id: s.id, reason: typeof s.reason === 'string' && s.reason.length > 0 }).toEqual({
            id: s.id,
            reason: true,
          });
      }
    });

    it('leaves zero orphans (no tool call without its result, no result without its call)', () => {
      const r = at(ratio);
      const withOrphans = r.sessions
        .filter((s) => s.orphans > 0)
        .map((s) => ({ id: s.id, violations: s.orphanDetails }));
      expect(withOrphans).toEqual([]);
      expect(r.totals.orphans).toBe(0);
    });

    it('keeps the floor (last user message, last reply, last 6 conversational) verbatim on every session', () => {
      const lost = at(ratio)
        .sessions.filter((s) => !s.floorKept)
        .map((s) => ({ id: s.id, missing: s.floorMissing }));
      expect(lost).toEqual([]);
    });

    it('a session left over budget after compacting says why, not that it was never compacted', () => {
      const misleading = at(ratio).sessions.filter(
        (s) => !s.fits && s.compactions > 0 && /has not been compacted yet/.test(s.reason ?? ''),
      );
      expect(misleading.map((s) => ({ id: s.id, reason: s.reason }))).toEqual([]);
    });

    it('reports per message tokens in input order and stages that add up', () => {
      for (const s of at(ratio).sessions) {
        expect(s.messageTokens).toHaveLength(s.messagesBefore);
        expect(s.effective).toHaveLength(s.messagesAfter);
        const saved = Object.values(s.stages).reduce((a, b) => a + (b ?? 0), 0);
        expect({ id: s.id, saved }).toEqual({ id: s.id, saved: s.tokensBefore - s.tokensAfter });
      }
    });
  });

  it('is deterministic: replaying twice gives identical reports', () => {
    const a = replayText(data, { budgetRatio: 0.25 });
    const b = replayText(data, { budgetRatio: 0.25 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a)).toBe(JSON.stringify(at(0.25)));
  });

  it('at every user message (--every-turn, ratio 0.25): no orphan the input does not have, the new ask verbatim at the end', () => {
    const sessions = [...parseTranscripts(data)].flatMap((p) => (p.ok ? [p.session] : []));
    const problems: string[] = [];
    for (const session of sessions) {
      const inputIds = new Set(
        findToolPairViolations(session.messages, { allowPendingTail: true }).map((v) =>
          'toolCallId' in v ? v.toolCallId : undefined,
        ),
      );
      const r = replaySession(session, { budgetRatio: 0.25, everyTurn: true });
      for (const t of r.turns!) {
        const fresh = findToolPairViolations(t.effective, { allowPendingTail: true }).filter(
          (v) => !('toolCallId' in v) || !inputIds.has(v.toolCallId),
        );
        if (fresh.length > 0) problems.push(`${session.id} @${t.index}: ${JSON.stringify(fresh)}`);
        if (JSON.stringify(t.effective[t.effective.length - 1]) !== JSON.stringify(session.messages[t.index])) {
          problems.push(`${session.id} @${t.index}: the user message is not the verbatim last message`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('records the effective history at each user message with --every-turn', () => {
    const lines = [...parseTranscripts(data)].flatMap((p) => (p.ok ? [p.session] : []));
    const session = lines.find((s) => s.id.startsWith('claude-code:0ccf1a04') && !s.id.includes('/'))!;
    const r = replaySession(session, { budgetRatio: 0.5, everyTurn: true });
    const userPositions = session.messages.flatMap((m, i) => (m.role === 'user' ? [i] : []));
    expect(r.turns!.map((t) => t.index)).toEqual(userPositions);
    for (const t of r.turns!) {
      expect(t.effective.length).toBeGreaterThan(0);
      expect(t.fits).toBe(t.tokens <= r.budget);
    }
    expect(JSON.stringify(replaySession(session, { budgetRatio: 0.5, everyTurn: true }))).toBe(JSON.stringify(r));
  });
});

describe('replay input', () => {
  const good = (id: string, extra: ChatMessage[] = []) =>
    JSON.stringify({
      id,
      source: 'test',
      messages: [
        { role: 'user', content: 'list the files' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: `${id}-c1`, name: 'bash', arguments: '{"command":"ls"}' }],
        },
        { role: 'tool', content: 'a.ts\nb.ts', toolCallId: `${id}-c1`, toolName: 'bash' },
        { role: 'assistant', content: 'Two files: a.ts and b.ts.' },
        ...extra,
      ],
    });
  const text = [
    good('first'),
    '{"id": "broken", "messages": [',
    JSON.stringify({ id: 'no-messages', source: 'x' }),
    '',
    JSON.stringify({
      id: 'bad-role',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'bot', content: 'hello' },
      ],
    }),
    JSON.stringify({ id: 'bad-content', messages: [{ role: 'user', content: 42 }] }),
    JSON.stringify({
      id: 'bad-args',
      messages: [{ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'x', arguments: { a: 1 } }] }],
    }),
    good('first'),
    good('last'),
  ].join('\n');

  it('names the line and the field of each bad line and still replays the other sessions', () => {
    const r = replayText(text, { budgetRatio: 0.5 });
    expect(r.sessions.map((s) => s.id)).toEqual(['first', 'last']);
    expect(r.errors.map((e) => ({ kind: e.kind, line: e.line, field: e.field }))).toEqual([
      { kind: 'input', line: 2, field: '(line)' },
      { kind: 'input', line: 3, field: 'messages' },
      { kind: 'input', line: 5, field: 'messages[1].role' },
      { kind: 'input', line: 6, field: 'messages[0].content' },
      { kind: 'input', line: 7, field: 'messages[0].toolCalls[0].arguments' },
      { kind: 'input', line: 8, field: 'id' },
    ]);
    expect(r.errors[0]!.message).toMatch(/not valid JSON/);
    expect(r.errors[1]!.message).toBe('is missing');
    expect(r.errors[2]!.message).toMatch(/must be one of system, user, assistant, tool, got "bot"/);
    expect(r.errors[5]!.message).toMatch(/already used on line 1/);
    expect(r.totals.badLines).toBe(6);
  });

  it('the CLI exits 1 on bad lines, still writes the report and names line and field on stderr', () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-'));
    try {
      const input = join(dir, 'in.jsonl');
      const out = join(dir, 'report.json');
      writeFileSync(input, text);
      const res = spawnSync(
        resolve(root, 'node_modules/.bin/tsx'),
        ['tools/replay/main.ts', '--input', input, '--budget-ratio', '0.5', '--out', out, '--no-progress'],
        {
          cwd: root,
          encoding: 'utf8',
        },
      );
      expect(res.status).toBe(1);
      expect(res.stderr).toContain('line 5, field messages[1].role: must be one of');
      expect(res.stderr).toContain('line 3, field messages: is missing');
      expect(res.stdout).toContain('TOTAL (2 sessions, 6 bad lines)');
      const report = JSON.parse(readFileSync(out, 'utf8')) as ReplayReport;
      expect(report.sessions.map((s) => s.id)).toEqual(['first', 'last']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('rejects tool calls on a user message and toolCallId on an assistant message', () => {
    const lines = [
      JSON.stringify({ id: 'a', messages: [{ role: 'user', content: '', toolCalls: [] }] }),
      JSON.stringify({ id: 'b', messages: [{ role: 'assistant', content: 'x', toolCallId: 'c1' }] }),
      JSON.stringify({ id: 'c', messages: 'nope' }),
      '[1, 2]',
    ].join('\n');
    expect([...parseTranscripts(lines)].map((p) => (p.ok ? 'ok' : `${p.error.line}:${p.error.field}`))).toEqual([
      '1:messages[0].toolCalls',
      '2:messages[0].toolCallId',
      '3:messages',
      '4:(line)',
    ]);
  });
});

describe('replay configuration', () => {
  const session = (messages: ChatMessage[], meta?: Record<string, unknown>, source?: string) => ({
    id: 's',
    messages,
    ...(meta ? { meta } : {}),
    ...(source ? { source } : {}),
  });
  const msgs: ChatMessage[] = [
    { role: 'user', content: 'please fix the failing test in src/index.ts' },
    { role: 'assistant', content: 'Looking at it now; the assertion compares the wrong field.' },
  ];

  it('infers the provider from the session: pi / Claude Code → anthropic, SWE-agent gpt-4* → openai, else anthropic', () => {
    expect(
      inferProvider(session(msgs, { startModel: 'anthropic/claude-opus-4-5' }, 'pi-coding-agent/badlogic-pi-mono')),
    ).toEqual({ provider: 'anthropic', model: 'claude-opus-4-5' });
    expect(inferProvider(session(msgs, { model: 'claude-haiku-4-5-20251001' }, 'claude-code/x'))).toEqual({
      provider: 'anthropic',
      model: 'claude-haiku-4-5-20251001',
    });
    expect(inferProvider(session(msgs, { model: 'gpt-4o' }, 'swe-agent/SWE-agent'))).toEqual({
      provider: 'openai',
      model: 'gpt-4o',
    });
    expect(inferProvider(session(msgs, { model: 'gpt4' }, 'swe-agent/SWE-agent'))).toEqual({
      provider: 'openai',
      model: 'gpt4',
    });
    expect(inferProvider(session(msgs, { model: null }, 'swe-agent/SWE-agent'))).toEqual({ provider: 'anthropic' });
    expect(inferProvider(session(msgs))).toEqual({ provider: 'anthropic' });
  });

  it('--budget-ratio sets the history budget to ratio × the estimated full size, whatever the output reserve', () => {
    const full = estimateMessagesTokens(msgs, counterFor({ provider: 'anthropic' }));
    expect(startSession(session(msgs), { budgetRatio: 0.5 }).budget.historyBudget).toBe(Math.floor(full * 0.5));
    const s = startSession(session(msgs), { budgetRatio: 0.25, maxOutputTokens: 4096 });
    expect(s.budget.historyBudget).toBe(Math.floor(full * 0.25));
    expect(s.budget.outputReserve).toBe(4096);
  });

  it('an empty session replays and fits', () => {
    const r = replaySession({ id: 'empty', messages: [] }, { budgetRatio: 0.5 });
    expect(r).toMatchObject({
      messagesBefore: 0,
      messagesAfter: 0,
      tokensBefore: 0,
      tokensAfter: 0,
      fits: true,
      orphans: 0,
      floorKept: true,
    });
  });

  it('otherwise takes the window from --context-window or the provider/model registry', () => {
    expect(startSession(session(msgs), { contextWindow: 50_000, maxOutputTokens: 10_000 }).budget.historyBudget).toBe(
      40_000,
    );
    expect(startSession(session(msgs), { provider: 'openai', model: 'gpt-4' }).budget.contextWindow).toBe(8192);
    expect(
      startSession(session(msgs, { model: 'claude-opus-4-5-20251101' }, 'claude-code/x'), {}).budget.contextWindow,
    ).toBe(200_000);
  });

  it('the floor is the last user message, the last assistant text reply and the last 6 conversational messages', () => {
    const call = (id: string): ChatMessage => ({
      role: 'assistant',
      content: '',
      toolCalls: [{ id, name: 'bash', arguments: '{}' }],
    });
    const res = (id: string): ChatMessage => ({ role: 'tool', content: 'ok', toolCallId: id });
    const m: ChatMessage[] = [
      { role: 'system', content: 'sys' }, // 0
      { role: 'user', content: 'u1' }, // 1
      { role: 'assistant', content: 'a1' }, // 2
      { role: 'user', content: 'u2' }, // 3
      { role: 'assistant', content: 'a2' }, // 4
      { role: 'user', content: 'u3' }, // 5
      { role: 'assistant', content: 'a3' }, // 6
      { role: 'user', content: 'u4' }, // 7
      call('c1'), // 8
      res('c1'), // 9
      { role: 'assistant', content: 'a4' }, // 10
      { role: 'user', content: 'u5' }, // 11
      call('c2'), // 12
      res('c2'), // 13
    ];
    expect(floorPositions(m, 6)).toEqual([4, 5, 6, 7, 10, 11]);
    expect(floorPositions(m, 1)).toEqual([10, 11]);
  });
});
