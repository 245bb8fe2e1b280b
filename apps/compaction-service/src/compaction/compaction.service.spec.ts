import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { isPoison } from '@ctxledger/kafka';
import { digestSummariesSetting } from './compaction.service';
import { summaryRequestData } from './event-publisher';
import type { Outgoing } from './event-publisher';
import { inMemoryCompactionService } from './testing/in-memory-compaction';

/** No quiet period unless a test sets one (DIGEST_SUMMARY_QUIET_MS): a note's summary is asked at each compaction. */
const serviceUnderTest = (env: Record<string, string> = {}) =>
  inMemoryCompactionService({ env, quietMs: Number(env.DIGEST_SUMMARY_QUIET_MS ?? 0) });

const message = (sessionId: string, tenant: string, i: number): AnyEvent =>
  createEvent(
    'message.appended',
    sessionId,
    { role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} `.repeat(400), clientMessageId: `m-${i}` },
    { tenant, eventId: `${tenant}-${i}` },
  ) as AnyEvent;

describe('CompactionService tenancy', () => {
  it("refuses another tenant's event for a session as poison and keeps the owner's session as if it never came", async () => {
    const owner = serviceUnderTest();
    const reference = serviceUnderTest();
    const config = createEvent(
      'session.configured',
      's-1',
      { provider: 'openai', model: 'gpt-4o', contextWindow: 8_000, maxOutputTokens: 1_000 },
      { tenant: 'acme', eventId: 'cfg' },
    ) as AnyEvent;
    for (const target of [owner, reference]) await target.service.handle(config, { partition: 0, replay: false });

    for (let i = 0; i < 30; i++) {
      const own = message('s-1', 'acme', i);
      await reference.service.handle(own, { partition: 0, replay: false });
      await owner.service.handle(own, { partition: 0, replay: false });
      if (i % 5 === 0) {
        // Same session id, another tenant, a clientMessageId the owner has not used yet.
        const intruder = message('s-1', 'mallory', 1_000 + i);
        const refusal = await owner.service.handle(intruder, { partition: 0, replay: false }).catch((e: unknown) => e);
        expect(isPoison(refusal)).toBe(true);
        expect((refusal as Error).message).toBe('session s-1 belongs to another tenant than "mallory"');
      }
    }

    const visible = (target: typeof owner) => {
      const { originals, active, rawTokens, effectiveTokens, pendingSummary } = target.service.stateOf('s-1')!;
      return { originals, active, rawTokens, effectiveTokens, pendingSummary };
    };
    expect(visible(owner)).toEqual(visible(reference));
    expect(visible(owner).originals).toHaveLength(30);
    expect(owner.published).toEqual(reference.published);
    expect(owner.published.some((o) => o.kind === 'block.created')).toBe(true);
  });
});

/** An agent session: one user request, then tool calls with large outputs (the in-turn path). */
function agentTurn(sessionId: string, steps: number): AnyEvent[] {
  const events: AnyEvent[] = [
    createEvent(
      'session.configured',
      sessionId,
      { provider: 'openai', contextWindow: 12_000, maxOutputTokens: 0 },
      {
        eventId: `${sessionId}-cfg`,
      },
    ) as AnyEvent,
    createEvent(
      'message.appended',
      sessionId,
      { role: 'user', content: 'Fix the failing tests in src/app.' },
      {
        eventId: `${sessionId}-u`,
      },
    ) as AnyEvent,
  ];
  for (let s = 0; s < steps; s++) {
    events.push(
      createEvent(
        'message.appended',
        sessionId,
        {
          role: 'assistant',
          content: `step ${s}`,
          toolCalls: [{ id: `c${s}`, name: 'bash', arguments: JSON.stringify({ command: `npm test -- t${s}` }) }],
        },
        { eventId: `${sessionId}-a${s}` },
      ) as AnyEvent,
      createEvent(
        'message.appended',
        sessionId,
        { role: 'tool', toolCallId: `c${s}`, toolName: 'bash', content: `ran t${s}\n${'output line\n'.repeat(300)}` },
        { eventId: `${sessionId}-t${s}` },
      ) as AnyEvent,
    );
  }
  return events;
}

describe('CompactionService digest summaries (DIGEST_SUMMARIES)', () => {
  it('auto follows the summarizer: on for a model provider, off for offline or none; on/off as given', () => {
    expect(digestSummariesSetting('auto', 'local')).toBe('on');
    expect(digestSummariesSetting(undefined, 'openai')).toBe('on');
    expect(digestSummariesSetting('auto', 'offline')).toBe('off');
    expect(digestSummariesSetting(undefined, undefined)).toBe('off');
    expect(digestSummariesSetting('off', 'local')).toBe('off');
    expect(digestSummariesSetting('on', undefined)).toBe('on');
  });

  it("asks for the in-turn prefix's summary through Kafka and publishes the model's answer as a superseding block", async () => {
    const { service, published } = serviceUnderTest({ SUMMARIZER_PROVIDER: 'local' });
    for (const e of agentTurn('s-d', 40)) await service.handle(e, { partition: 0, replay: false });
    const request = published.find((o) => o.kind === 'summary.requested');
    expect(request).toBeDefined();
    if (request?.kind !== 'summary.requested') throw new Error('no request');
    const note = published.find(
      (o) => o.kind === 'block.created' && o.block.id === request.request.supersedes?.blockId,
    );
    expect(note?.kind === 'block.created' && note.block.stage).toBe('split-turn');

    const answer = (provider: string, eventId: string) =>
      createEvent(
        'summary.completed',
        's-d',
        { requestId: request.request.requestId, summary: 'Ran the tests one by one.', provider },
        { eventId },
      ) as AnyEvent;
    // The offline summarizer's answer (a model call's fallback) leaves the note.
    const before = published.length;
    await service.handle(answer('offline', 'ans-offline'), { partition: 0, replay: false });
    expect(published.length).toBe(before);
    expect(service.stateOf('s-d')!.pendingDigestSummary).toBeUndefined();
  });

  it("a model's answer supersedes the note; off, the same session asks for none", async () => {
    const on = serviceUnderTest({ DIGEST_SUMMARIES: 'on' });
    const off = serviceUnderTest({ DIGEST_SUMMARIES: 'off', SUMMARIZER_PROVIDER: 'local' });
    for (const e of agentTurn('s-e', 40)) {
      await on.service.handle(e, { partition: 0, replay: false });
      await off.service.handle(e, { partition: 0, replay: false });
    }
    expect(off.published.some((o) => o.kind === 'summary.requested')).toBe(false);
    const request = on.published.find((o) => o.kind === 'summary.requested');
    if (request?.kind !== 'summary.requested') throw new Error('no request');
    await on.service.handle(
      createEvent(
        'summary.completed',
        's-e',
        { requestId: request.request.requestId, summary: 'Ran the tests one by one.', provider: 'local' },
        { eventId: 'ans' },
      ) as AnyEvent,
      { partition: 0, replay: false },
    );
    // On the wire: a gist, which may take half the note (a whole-turn summary: a quarter of what it replaces).
    const wire = summaryRequestData(request.request);
    expect(wire.form).toBe('gist');
    expect(wire.maxSummaryTokens).toBe(Math.max(64, Math.floor(request.request.tokensBefore * 0.5)));
    const { supersedes: _s, ...turns } = request.request;
    expect(summaryRequestData(turns).form).toBeUndefined();
    expect(summaryRequestData(turns).maxSummaryTokens).toBe(Math.max(64, Math.floor(turns.tokensBefore * 0.25)));
    const last = on.published[on.published.length - 1]!;
    expect(last.kind === 'block.created' && last.block.stage).toBe('summary');
    expect(last.kind === 'block.created' && last.block.range).toEqual(request.request.range);
    const content = last.kind === 'block.created' ? last.block.edits[0]!.replacement[0]!.content : '';
    expect(content).toContain('Ran the tests one by one.');
    expect(content).toContain('`npm test -- t0`'); // a command the summary did not name, kept (invariant 8)
  });
});

describe('CompactionService asks for a note summary when the session pauses (DIGEST_SUMMARY_QUIET_MS)', () => {
  afterEach(() => jest.useRealTimers());
  const at = { partition: 0, replay: false };
  const env = { DIGEST_SUMMARIES: 'on', DIGEST_SUMMARY_QUIET_MS: '2000' };
  const asked = (published: readonly Outgoing[]) =>
    published.flatMap((o) => (o.kind === 'summary.requested' ? [o.request] : []));
  /** The pauses noted, as the session stream gives them back to the service. */
  const pausesIn = (published: readonly Outgoing[]) =>
    published.flatMap((o) =>
      o.kind === 'session.paused'
        ? [createEvent('compaction.requested', o.sessionId, { trigger: 'pause' }, { eventId: o.eventId }) as AnyEvent]
        : [],
    );

  it('an agent appending without a pause gets one request, for the largest note shown, once it pauses', async () => {
    jest.useFakeTimers();
    const { service, published } = serviceUnderTest(env);
    const log = agentTurn('s-q', 80);
    for (const e of log) await service.handle(e, at);
    const notes = published.filter((o) => o.kind === 'block.created' && o.block.stage === 'split-turn');
    expect(notes.length).toBeGreaterThan(2); // condensed again and again: asked at once, each would have had a request
    expect(service.stateOf('s-q')!.policy.digestSummaries).toBe('pause');
    expect(asked(published)).toEqual([]);

    await jest.advanceTimersByTimeAsync(1999);
    expect(pausesIn(published)).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    const pauses = pausesIn(published);
    expect(pauses).toHaveLength(1);
    for (const p of pauses) await service.handle(p, at);
    const sent = asked(published);
    expect(sent).toHaveLength(1);
    const state = service.stateOf('s-q')!;
    const shown = state.entries.filter((e) => e.blockId === sent[0]!.supersedes?.blockId);
    expect(shown).toHaveLength(1);
    expect(sent[0]!.range).toEqual({ from: shown[0]!.from, to: shown[0]!.to });
    expect(sent[0]!.tokensBefore).toBe(
      Math.max(...state.entries.filter((e) => e.stage === 'split-turn').map((e) => e.tokens)),
    );
    // The same pause again (a retry): nothing more is asked while that request is answerable.
    await service.handle(pauses[0]!, at);
    expect(asked(published)).toHaveLength(1);

    // The model's answer supersedes the note; a replay of the log (the pause and the answer in it) gives the same blocks.
    const answer = createEvent(
      'summary.completed',
      's-q',
      { requestId: sent[0]!.requestId, summary: 'Ran the tests one by one.', provider: 'local' },
      { eventId: 'ans-q' },
    ) as AnyEvent;
    await service.handle(answer, at);
    const blocks = (out: readonly Outgoing[]) => out.flatMap((o) => (o.kind === 'block.created' ? [o.block.id] : []));
    const last = published.filter((o) => o.kind === 'block.created').pop()!;
    expect(last.kind === 'block.created' && last.block.stage).toBe('summary');
    const replay = serviceUnderTest(env);
    for (const e of [...log, ...pauses, answer]) await replay.service.handle(e, at);
    expect(blocks(replay.published)).toEqual(blocks(published));
    replay.pauses.onModuleDestroy();

    // Once quiet again, no note is left worth asking about: no pause is noted.
    await jest.advanceTimersByTimeAsync(5000);
    expect(pausesIn(published)).toHaveLength(1);
  });

  it('a message during the quiet period starts it over; a message alone starts none', async () => {
    jest.useFakeTimers();
    const { service, published, pauses } = serviceUnderTest(env);
    for (const e of agentTurn('s-r', 40)) await service.handle(e, at);
    await jest.advanceTimersByTimeAsync(1500);
    const short = (id: string) =>
      createEvent(
        'message.appended',
        's-r',
        { role: 'assistant', content: 'still working' },
        { eventId: id },
      ) as AnyEvent;
    await service.handle(short('x1'), at); // no compaction, but the session is active again
    await jest.advanceTimersByTimeAsync(1500);
    expect(pausesIn(published)).toEqual([]);
    await jest.advanceTimersByTimeAsync(500);
    expect(pausesIn(published)).toHaveLength(1);
    expect(pauses.watching('s-r')).toBe(false);
    await service.handle(short('x2'), at);
    expect(pauses.watching('s-r')).toBe(false);
  });

  it('without a quiet period the note summary is asked at each compaction, and no pause is noted', async () => {
    jest.useFakeTimers();
    const { service, published } = serviceUnderTest({ DIGEST_SUMMARIES: 'on', DIGEST_SUMMARY_QUIET_MS: '0' });
    for (const e of agentTurn('s-z', 80)) await service.handle(e, at);
    expect(service.stateOf('s-z')!.policy.digestSummaries).toBe('on');
    expect(asked(published).length).toBeGreaterThan(1);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(pausesIn(published)).toEqual([]);
  });
});
