import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { counterFor, findToolPairViolations, type ChatMessage, type CompactionBlock } from '@ctxledger/context-engine';
import { topicNames, type AnyEvent } from '@ctxledger/contracts';
import { agentTurn } from '../support/agent-turn';
import { referenceBlocks } from '../support/compaction-reference';
import { eventually } from '../support/eventually';
import { readTopic, testKafka, TopicCollector } from '../support/kafka-helpers';
import { startService, type RunningService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';

/**
 * Issue 17: an agent session (one long user turn) has its in-turn prefix condensed by the deterministic split-turn
 * note at once, and summarized by the real small model through Kafka (summary.requested → summarizer-service with
 * SUMMARIZER_PROVIDER=local → summary.completed on the session stream); the model's summary supersedes the note as
 * a new block, which the served history shows. SmolLM2-135M-Instruct's summaries are poor: this asserts the
 * mechanics and the guarantees (bounded output, the timeout, the working-state facts kept, the block superseding
 * the note, replay), never the wording. One summarizer process for the suite: the model is loaded once.
 */

const MODEL_PATH =
  process.env.CTXLEDGER_TEST_MODEL ??
  execFileSync(resolve(__dirname, '../../deploy/local/ensure-test-model'), { encoding: 'utf8' }).trim();

/** A window the agent turn overflows after about eleven steps: one note of ~600 tokens, a ~1k-token request. */
const CONFIG = { provider: 'local', model: 'SmolLM2-135M-Instruct', contextWindow: 2_500, maxOutputTokens: 200 };
const STEPS = 11;

const isBlock = (e: AnyEvent): e is Extract<AnyEvent, { type: 'block.created' }> => e.type === 'block.created';
const blockOf = (e: Extract<AnyEvent, { type: 'block.created' }>) => e.data.block as unknown as CompactionBlock;

describe('digest summaries with the real small model, end to end (issue 17)', () => {
  const prefix = unique('dsum').replace(/-/g, '_');
  const topics = topicNames(prefix);
  const base = {
    TOPIC_PREFIX: prefix,
    MONGODB_URI: testStack().mongoUri.replace(/\/[^/]*$/, `/${prefix}`),
    // What `npm start` gives every service: the compaction service turns digest summaries on from it (auto).
    SUMMARIZER_PROVIDER: 'local',
  };
  const compactionEnv = { ...base, SUMMARY_TIMEOUT_MS: '100000' };
  const summarizerEnv = {
    ...base,
    LOCAL_MODEL_PATH: MODEL_PATH,
    LOCAL_THREADS: '1',
    LOCAL_CONTEXT_SIZE: '4096',
    // The model's answer as it is: no offline stand-in, no retry, and no output beyond the summary's own limit.
    SUMMARIZER_FALLBACK: 'none',
    SUMMARIZER_MAX_ATTEMPTS: '1',
    SUMMARIZER_OUTPUT_HEADROOM_TOKENS: '0',
    SUMMARIZER_TIMEOUT_MS: '90000',
  };
  const kafka = testKafka('digest-summary-e2e');
  const services: Record<string, RunningService> = {};
  let requests: TopicCollector;
  let blocks: TopicCollector;
  let sessionEvents: TopicCollector;

  const api = (path: string, init?: RequestInit) =>
    fetch(`${services.session!.url}/v1${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...init?.headers },
    });
  const post = async (sessionId: string, messages: ChatMessage[]) => {
    const config = await api(`/sessions/${sessionId}/config`, { method: 'PUT', body: JSON.stringify(CONFIG) });
    expect(config.status).toBeLessThan(300);
    const res = await api(`/sessions/${sessionId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ messages: messages.map((m, i) => ({ ...m, clientMessageId: `m-${i}` })) }),
    });
    expect(res.status).toBe(202);
  };
  const history = async (sessionId: string) =>
    (await (await api(`/sessions/${sessionId}/history`)).json()) as {
      messages: ChatMessage[];
      fits: boolean;
      originalMessageCount: number;
      activeBlocks: number;
    };
  const ofSession = (collector: TopicCollector, sessionId: string) =>
    collector.events.filter((e) => e.sessionId === sessionId);

  beforeAll(async () => {
    services.compaction = await startService('compaction-service', compactionEnv);
    [services.session, services.summarizer] = await Promise.all([
      startService('session-service', base),
      startService('summarizer-service', summarizerEnv, 120_000),
    ]);
    [requests, blocks, sessionEvents] = await Promise.all([
      new TopicCollector(kafka, topics.summaryRequests).start(),
      new TopicCollector(kafka, topics.blocks).start(),
      new TopicCollector(kafka, topics.sessionEvents).start(),
    ]);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([requests?.stop(), blocks?.stop(), sessionEvents?.stop()]);
    await Promise.all(Object.values(services).map((s) => s.stop()));
  });

  it("the in-turn prefix's note serves at once; the model's summary supersedes it with the facts it left out", async () => {
    const sessionId = unique('agent');
    const messages = agentTurn(STEPS, 6);
    await post(sessionId, messages);

    // The note is published, and a gist of the same range is asked through Kafka.
    await requests.until(() => ofSession(requests, sessionId).length > 0, 'a summary request', 60_000);
    const request = ofSession(requests, sessionId)[0] as Extract<AnyEvent, { type: 'summary.requested' }>;
    expect(request.data.form).toBe('gist');
    await blocks.until(
      () => ofSession(blocks, sessionId).some((e) => isBlock(e) && blockOf(e).stage === 'split-turn'),
      'the split-turn note',
    );
    // One request, once the session paused (DIGEST_SUMMARY_QUIET_MS), for the largest note shown: the newest,
    // which absorbed any note an earlier compaction of the same POST made.
    const notes = ofSession(blocks, sessionId)
      .filter(isBlock)
      .map(blockOf)
      .filter((b) => b.stage === 'split-turn');
    const note = notes[notes.length - 1]!;
    expect(ofSession(requests, sessionId)).toHaveLength(1);
    // The pause that asked for it is in the session's log (a replay asks the same).
    await sessionEvents.until(
      () =>
        ofSession(sessionEvents, sessionId).some(
          (e) => e.type === 'compaction.requested' && e.data.trigger === 'pause',
        ),
      'the pause in the log',
    );
    expect(request.data.range).toEqual({ from: note.edits[0]!.from, to: note.edits[0]!.to });
    const noteText = note.edits[0]!.replacement[0]!.content;
    // A read never waits for the model: the note is served while the model is still reading the prefix.
    await eventually(
      () => history(sessionId),
      (h) => h.originalMessageCount === messages.length && h.messages.some((m) => m.content === noteText),
      'the served history with the note',
      15_000,
    );

    // The model answers on the session stream: a completed summary by the local provider, its output bounded.
    await sessionEvents.until(
      () =>
        ofSession(sessionEvents, sessionId).some((e) => e.type === 'summary.completed' || e.type === 'summary.failed'),
      "the model's answer",
      100_000,
    );
    const answer = ofSession(sessionEvents, sessionId).find(
      (e) => e.type === 'summary.completed' || e.type === 'summary.failed',
    )!;
    expect(answer).toMatchObject({
      type: 'summary.completed',
      data: {
        requestId: request.data.requestId,
        provider: 'local',
        model: expect.stringMatching(/^SmolLM2-135M-Instruct/),
      },
    });
    const completed = answer as Extract<AnyEvent, { type: 'summary.completed' }>;
    expect(completed.data.outputTokens).toBeGreaterThan(0);
    // The published gist is within its cap, by the summarizer's own count (a model that ran past the cap has its
    // answer cut back to whole sentences: its generated tokens may be more).
    expect(counterFor({ provider: 'local' }).text(completed.data.summary)).toBeLessThanOrEqual(
      request.data.maxSummaryTokens,
    );

    // A new summary block over exactly the note's range, smaller than the note.
    await blocks.until(
      () => ofSession(blocks, sessionId).some((e) => isBlock(e) && blockOf(e).stage === 'summary'),
      'the superseding summary block',
    );
    const summary = ofSession(blocks, sessionId)
      .filter(isBlock)
      .map(blockOf)
      .find((b) => b.stage === 'summary')!;
    expect(summary.range).toEqual(request.data.range);
    expect(summary.tokensBefore).toBeLessThan(note.tokensBefore); // it replaces the note, not the originals
    expect(summary.tokensSaved).toBeGreaterThan(0);
    const text = summary.edits[0]!.replacement[0]!.content;
    expect(text).toContain(completed.data.summary.trim().slice(0, 40));

    // The served history shows the model's summary in the note's place, everything else as before.
    const served = await eventually(
      () => history(sessionId),
      (h) => h.originalMessageCount === messages.length && h.messages.some((m) => m.content === text),
      'the served history with the summary',
    );
    expect(served.messages.some((m) => m.content === noteText)).toBe(false);
    expect(served.fits).toBe(true);
    expect(findToolPairViolations(served.messages, { allowPendingTail: true })).toEqual([]);
    expect(served.messages[0]).toEqual(messages[0]); // the user's request, verbatim
    expect(served.messages[served.messages.length - 1]).toEqual(messages[messages.length - 1]);
    // Never knows less than the note: every file and command the note's working state lists is in the summary.
    const listed = [...noteText.matchAll(/^- (src\/[\w/.-]+\.ts) \(/gm), ...noteText.matchAll(/^- `([^`]+)`/gm)].map(
      (m) => m[1]!,
    );
    expect(listed.length).toBeGreaterThan(2);
    for (const fact of new Set(listed)) expect(text).toContain(fact);
    // The failing test run keeps its outcome (reported by the model, or appended from the working state).
    expect(noteText).toMatch(/`npm test -- src\/parser\/parse\.spec\.ts`[^\n]*exit 1/);
    expect(text).toContain('npm test -- src/parser/parse.spec.ts');
    expect(text).toMatch(/exit 1|failed/);

    // Replay: the log (with the model's answer in it) gives the same blocks, ids included.
    const log = (await readTopic(kafka, topics.sessionEvents))
      .map((r) => r.event)
      .filter((e) => e.sessionId === sessionId);
    const emitted = ofSession(blocks, sessionId).filter(isBlock).map(blockOf);
    expect((await referenceBlocks(log, compactionEnv)).map((b) => b.id)).toEqual(emitted.map((b) => b.id));
  });

  it('a summary later than SUMMARY_TIMEOUT_MS leaves the note: the timeout is in the log, the late answer ignored', async () => {
    // The compaction service again, now with a timeout far below the model's time; it rebuilds its sessions from
    // the log and publishes nothing new for the first one.
    await services.compaction!.stop();
    const blocksBefore = blocks.events.length;
    const shortTimeout = { ...base, SUMMARY_TIMEOUT_MS: '300' };
    services.compaction = await startService('compaction-service', shortTimeout);

    const sessionId = unique('late');
    const messages = agentTurn(STEPS, 6);
    await post(sessionId, messages);
    await requests.until(() => ofSession(requests, sessionId).length > 0, 'a summary request', 60_000);
    const request = ofSession(requests, sessionId)[0] as Extract<AnyEvent, { type: 'summary.requested' }>;
    // The timeout first, then the model's own answer, both on the session stream.
    await sessionEvents.until(
      () =>
        ofSession(sessionEvents, sessionId).some(
          (e) =>
            e.type === 'summary.completed' ||
            (e.type === 'summary.failed' && e.eventId !== `timeout:${request.data.requestId}`),
        ),
      "the model's late answer",
      100_000,
    );
    const answers = ofSession(sessionEvents, sessionId).filter(
      (e) => e.type === 'summary.completed' || e.type === 'summary.failed',
    );
    expect(answers[0]).toMatchObject({
      type: 'summary.failed',
      eventId: `timeout:${request.data.requestId}`,
      data: { requestId: request.data.requestId, reason: 'no summary within 300 ms' },
    });
    expect(answers.length).toBeGreaterThanOrEqual(2);

    // The note stays: no summary block for this session, and the served history shows the note.
    const log = (await readTopic(kafka, topics.sessionEvents))
      .map((r) => r.event)
      .filter((e) => e.sessionId === sessionId);
    const expected = await referenceBlocks(log, shortTimeout);
    await blocks.until(
      () => ofSession(blocks, sessionId).filter(isBlock).length >= expected.length,
      `${expected.length} blocks`,
    );
    const emitted = ofSession(blocks, sessionId).filter(isBlock).map(blockOf);
    expect(emitted.map((b) => b.id)).toEqual(expected.map((b) => b.id));
    expect(emitted.some((b) => b.stage === 'split-turn')).toBe(true);
    expect(emitted.some((b) => b.stage === 'summary')).toBe(false);
    const note = emitted.find((b) => b.stage === 'split-turn')!.edits[0]!.replacement[0]!.content;
    const served = await eventually(
      () => history(sessionId),
      (h) => h.originalMessageCount === messages.length && h.messages.some((m) => m.content === note),
      'the served history with the note',
    );
    expect(served.fits).toBe(true);

    // The restarted service rebuilt the first session from the log: nothing new for it (at most a block it had
    // published already, again, with the same id).
    const seen = new Set(blocks.events.slice(0, blocksBefore).map((e) => e.eventId));
    const others = blocks.events.slice(blocksBefore).filter((e) => e.sessionId !== sessionId);
    for (const e of others) expect(seen.has(e.eventId)).toBe(true);
  });
});
