import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  counterFor,
  estimateMessagesTokens,
  findToolPairViolations,
  floorPositions,
  type ChatMessage,
} from '@ctxledger/context-engine';
import {
  PRICING,
  PromptCacheMeter,
  billCall,
  pricingFor,
  type CacheProvider,
  type PromptItem,
} from '../../tools/replay/cost';
import { parseTranscripts } from '../../tools/replay/input';
import {
  appendAndCompact,
  inferProvider,
  newTally,
  replaySession,
  replayText,
  startSession,
  turnsBetween,
  type ReplayReport,
} from '../../tools/replay/replay';
import { costTable } from '../../tools/replay/table';
import { sharedDataText } from '../support/shared-data';

const root = resolve(__dirname, '../..');
const data = sharedDataText();

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

  describe.each([undefined, 0.5, 0.25])('prompt-cache cost at budget ratio %s', (ratio) => {
    const report = (): ReplayReport => {
      const key = ratio ?? 1;
      if (!reports.has(key)) reports.set(key, replayText(data, ratio === undefined ? {} : { budgetRatio: ratio }));
      return reports.get(key)!;
    };

    it('bills one call per assistant message; a session never compacted costs the same with and without', () => {
      const sessions = new Map(
        [...parseTranscripts(data)].flatMap((p) => (p.ok ? [[p.session.id, p.session] as const] : [])),
      );
      for (const s of report().sessions) {
        const assistants = sessions.get(s.id)!.messages.filter((m) => m.role === 'assistant').length;
        expect({ id: s.id, calls: s.cost.calls }).toEqual({ id: s.id, calls: assistants });
        expect(s.cost.withoutCompaction.calls).toBe(assistants);
        expect(s.cost.cacheInvalidatingCompactions).toBeLessThanOrEqual(s.turnsBetweenCompactions.at.length);
        if (s.compactions === 0) {
          expect(s.cost.withCompaction).toEqual(s.cost.withoutCompaction);
          expect(s.cost.ratio).toBe(1);
        }
        for (const c of [s.cost.withCompaction, s.cost.withoutCompaction])
          expect(c.cacheRead + c.cacheWrite + c.uncached).toBe(c.promptTokens);
      }
      const t = report().totals;
      expect(t.cost.calls).toBe(report().sessions.reduce((a, s) => a + s.cost.calls, 0));
      expect(Object.values(t.bySource).reduce((a, v) => a + v.sessions, 0)).toBe(32);
    });

    it('reports the model calls between consecutive compactions, and their minimum across sessions', () => {
      const r = report();
      for (const s of r.sessions) {
        const t = s.turnsBetweenCompactions;
        expect(t.list).toHaveLength(Math.max(0, t.at.length - 1));
        expect(t.list.every((n) => n >= 0)).toBe(true);
        expect(t.min).toBe(t.list.length ? Math.min(...t.list) : null);
      }
      const mins = r.sessions.flatMap((s) =>
        s.turnsBetweenCompactions.min === null ? [] : [s.turnsBetweenCompactions.min],
      );
      expect(r.totals.minTurnsBetweenCompactions).toBe(mins.length ? Math.min(...mins) : null);
    });

    it('the incremental prefix tracking bills exactly what comparing every prompt in full does', () => {
      const sessions = [...parseTranscripts(data)].flatMap((p) => (p.ok ? [p.session] : []));
      const byId = new Map(report().sessions.map((s) => [s.id, s]));
      for (const session of sessions) {
        const options = ratio === undefined ? {} : { budgetRatio: ratio };
        let state = startSession(session, options);
        const tally = newTally();
        const prompts: PromptItem[][] = [];
        const raw: PromptItem[][] = [];
        for (const m of session.messages) {
          if (m.role === 'assistant') {
            prompts.push(state.entries.map((e) => ({ message: { ...e.message }, tokens: e.tokens })));
            raw.push(state.originals.map((o, i) => ({ message: { ...o }, tokens: state.originalTokens[i]! })));
          }
          state = appendAndCompact(state, m, tally);
        }
        for (const p of ['anthropic', 'openai', 'google'] as CacheProvider[]) {
          // Every prompt a fresh array of fresh objects: the meter compares contents from the start each time.
          const naive = (list: PromptItem[][]) => {
            const meter = new PromptCacheMeter(PRICING[p], state.counter.perConversation);
            for (const prompt of list) meter.call(prompt);
            return meter.totals.billed;
          };
          const got = byId.get(session.id)!.cost.byPricing[p];
          expect({ id: session.id, p, billed: got.withCompaction }).toEqual({
            id: session.id,
            p,
            billed: expect.closeTo(naive(prompts), 6) as number,
          });
          expect(got.withoutCompaction).toBeCloseTo(naive(raw), 6);
        }
      }
    });
  });

  it('the default policy is net cheaper after cache than no compaction (default windows)', () => {
    const r = replayText(data);
    expect(r.totals.cost.ratio).toBeLessThan(1);
    for (const p of ['anthropic', 'openai', 'google'] as const)
      expect(r.totals.cost.byPricing[p].ratio).toBeLessThan(1);
    for (const s of r.sessions.filter((x) => x.compactions > 0))
      expect({ id: s.id, cheaper: s.cost.ratio < 1 }).toEqual({ id: s.id, cheaper: true });
    expect(costTable(r)).toMatch(/net cheaper after cache: 0\.\d\d×/);
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

  it("a summary's answer waits --summary-lag messages (the summarizer's latency); 0 answers it at once", () => {
    const session = [...parseTranscripts(data)]
      .flatMap((p) => (p.ok ? [p.session] : []))
      .find((s) => s.id.startsWith('pi-'))!;
    const lag = 10;
    const asked = (l: number) => {
      let state = startSession(session, { budgetRatio: 0.25 });
      const tally = newTally();
      const waits: number[] = [];
      let open: { id: string; at: number } | undefined;
      session.messages.forEach((m, i) => {
        state = appendAndCompact(state, m, tally, undefined, l);
        const id = state.pendingSummary?.requestId;
        if (open && open.id !== id) {
          waits.push(i - open.at);
          open = undefined;
        }
        if (id && !open) open = { id, at: i };
      });
      return { waits, completed: tally.completed };
    };
    const now = asked(0);
    expect(now.waits).toEqual([]); // never left pending after a step
    expect(now.completed).toBeGreaterThan(0);
    const later = asked(lag);
    expect(later.completed).toBeGreaterThan(0);
    // Each answered after exactly `lag` more messages (one superseded earlier would wait less: none here).
    expect(later.waits.length).toBeGreaterThanOrEqual(later.completed);
    expect(later.waits.every((w) => w === lag)).toBe(true);
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
      expect(res.stdout).toContain('net cheaper after cache:');
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

describe('replay cost model (tools/replay/cost.ts)', () => {
  const item = (role: string, content: string, tokens: number): PromptItem => ({ message: { role, content }, tokens });
  const a = item('user', 'a', 1000);
  const b = item('assistant', 'b', 1000);
  const c = item('tool', 'c', 1000);
  const d = item('assistant', 'd', 1000);

  it('prices one call with each provider: reads, writes, minimum and granularity', () => {
    // Anthropic: 2000 read at 0.1×, 1000 written at 1.25×.
    expect(billCall(PRICING.anthropic, 3000, 2000, 2000)).toEqual({
      promptTokens: 3000,
      cacheRead: 2000,
      cacheWrite: 1000,
      uncached: 0,
      billed: 200 + 1250,
    });
    // Under the minimum nothing is cached or written.
    expect(billCall(PRICING.anthropic, 900, 800, 800)).toMatchObject({ cacheRead: 0, cacheWrite: 0, uncached: 900 });
    // A previous prompt under the minimum left nothing to read.
    expect(billCall(PRICING.anthropic, 3000, 900, 900)).toMatchObject({ cacheRead: 0, cacheWrite: 3000, billed: 3750 });
    // OpenAI: the first 1024 tokens, then 128-token steps (1024 + 7 × 128 = 1920 of 2000) at 0.5×, no write premium.
    expect(billCall(PRICING.openai, 3000, 2000, 2000)).toEqual({
      promptTokens: 3000,
      cacheRead: 1920,
      cacheWrite: 1080,
      uncached: 0,
      billed: 960 + 1080,
    });
    // Google: 0.25×, minimum 2048 tokens.
    expect(billCall(PRICING.google, 5000, 4000, 4000).billed).toBe(1000 + 1000);
    expect(billCall(PRICING.google, 3000, 2000, 2000).billed).toBe(3000);
    expect(pricingFor('openai').provider).toBe('openai');
    expect(pricingFor('gemini').provider).toBe('google');
    expect(pricingFor(undefined).provider).toBe('anthropic');
  });

  it('a prompt growing by appends pays writes only for the new suffix', () => {
    const prompt: PromptItem[] = [a, b];
    const m = new PromptCacheMeter(PRICING.anthropic);
    expect(m.call(prompt).billed).toBe(2000 * 1.25); // first call: everything written
    prompt.push(c, d); // extended in place, as the engine's view is
    expect(m.call(prompt)).toMatchObject({ cacheRead: 2000, cacheWrite: 2000, billed: 2000 * 0.1 + 2000 * 1.25 });
    // The same contents in a new array are still a cache hit.
    expect(m.call([a, b, c, d, item('tool', 'e', 1000)])).toMatchObject({ cacheRead: 4000, cacheWrite: 1000 });
    expect(m.totals).toMatchObject({ calls: 3, promptTokens: 11_000, cacheRead: 6000, cacheWrite: 5000 });
    expect(m.invalidatingCompactions).toBe(0);
  });

  it('a compaction that changes message 0 invalidates the whole cache', () => {
    for (const p of ['anthropic', 'openai', 'google'] as const) {
      const m = new PromptCacheMeter(PRICING[p]);
      m.call([a, b, c]);
      const compacted = [item('user', 'a (shortened)', 500), b, c, d];
      expect(m.compaction(compacted)).toBe(true);
      expect(m.compaction(compacted)).toBe(false); // the same change is counted once
      const bill = m.call(compacted);
      expect(bill.cacheRead).toBe(0);
      expect(bill.cacheWrite).toBe(3500);
      expect(m.invalidatingCompactions).toBe(1);
    }
  });

  it('a compaction of messages appended since the last call does not invalidate; one inside the prompt does from there', () => {
    const x = item('user', 'x', 1500);
    const m = new PromptCacheMeter(PRICING.anthropic);
    const view = [x, b];
    m.call(view);
    view.push(c);
    const truncatedC = [x, b, item('tool', 'c (truncated)', 200)];
    expect(m.compaction(truncatedC)).toBe(false);
    expect(m.call(truncatedC)).toMatchObject({ promptTokens: 2700, cacheRead: 2500, cacheWrite: 200 });
    const editedB = [x, item('assistant', 'b (edited)', 300), truncatedC[2]!, d];
    expect(m.compaction(editedB)).toBe(true);
    expect(m.call(editedB)).toMatchObject({ promptTokens: 3000, cacheRead: 1500, cacheWrite: 1500 });
    expect(m.invalidatingCompactions).toBe(1);
  });

  it('system messages go first for Anthropic and Google: a new summary invalidates every message, for OpenAI only those after it', () => {
    const summary = item('system', '[Summary of earlier conversation]', 100);
    const before = [a, b, c, d];
    const after = [a, b, summary, d];
    const anthropic = new PromptCacheMeter(PRICING.anthropic, 10);
    anthropic.call(before);
    expect(anthropic.call(after)).toMatchObject({ promptTokens: 3110, cacheRead: 0, cacheWrite: 3110 });
    const openai = new PromptCacheMeter(PRICING.openai, 10);
    openai.call(before);
    // Fixed tokens (10) + a + b = 2010 in common → 1024 + 7 × 128 = 1920 read.
    expect(openai.call(after)).toMatchObject({ promptTokens: 3110, cacheRead: 1920, cacheWrite: 1190 });
    // Appending a system message changes the system text: only the fixed tokens stay cached (under the minimum here).
    const grown = [...after];
    anthropic.call(grown);
    grown.push(item('system', 'note', 50), item('user', 'next', 2000));
    expect(anthropic.call(grown)).toMatchObject({ cacheRead: 0, cacheWrite: 5160 });
  });

  it('turnsBetween: the calls between consecutive compaction steps, min and median', () => {
    expect(turnsBetween([])).toEqual({ at: [], list: [], min: null, median: null });
    expect(turnsBetween([4])).toEqual({ at: [4], list: [], min: null, median: null });
    expect(turnsBetween([4, 7, 17, 20])).toEqual({ at: [4, 7, 17, 20], list: [3, 10, 3], min: 3, median: 3 });
    expect(turnsBetween([1, 2, 6]).median).toBe(2.5);
  });
});
