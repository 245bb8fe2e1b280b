import { execFileSync } from 'node:child_process';
import { crc32 } from 'node:zlib';
import { keyPartition } from '@ctxledger/kafka';
import { findToolPairViolations, type ChatMessage } from '@ctxledger/context-engine';
import { startService, type RunningService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';
import { transcript, transcriptEvents } from '../support/transcripts';
import { eventually } from '../support/eventually';

const metricValue = (text: string, name: string): number =>
  text
    .split('\n')
    .filter((l) => l.startsWith(name.includes('{') ? name : `${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);

describe('the pipeline end to end: session stream → compaction → blocks → read model → HTTP', () => {
  const prefix = unique('e2e').replace(/-/g, '_');
  const database = prefix;
  const env = {
    TOPIC_PREFIX: prefix,
    MONGODB_URI: testStack().mongoUri.replace(/\/[^/]*$/, `/${database}`),
    SUMMARY_TIMEOUT_MS: '20000',
  };
  const services: Record<string, RunningService> = {};
  const api = (path: string, init?: RequestInit) =>
    fetch(`${services.session.url}/v1${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...init?.headers },
    });
  const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });

  beforeAll(async () => {
    // The compaction service first: it creates the topics of this prefix before anyone subscribes.
    services.compaction = await startService('compaction-service', env);
    [services.session, services.summarizer] = await Promise.all([
      startService('session-service', env),
      startService('summarizer-service', env),
    ]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(Object.values(services).map((s) => s.stop()));
  });

  it('a real transcript published raw with kcat: the effective history fits, no orphans, the tail kept, savings add up', async () => {
    const session = transcript('pi-coding-agent:d703a1a9');
    const sessionId = unique('kcat');
    const lines = transcriptEvents(session, sessionId, {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      maxOutputTokens: 64_000,
    });
    // kcat reads "key<TAB>value" lines: the documented JSON, produced by a client we did not write.
    execFileSync('kcat', ['-P', '-b', testStack().brokers[0], '-t', `${prefix}.session-events`, '-K', '\t'], {
      input: lines.map((l) => `${sessionId}\t${JSON.stringify(l)}`).join('\n') + '\n',
      maxBuffer: 64 * 1024 * 1024,
    });

    const history = await eventually(
      async () => (await json(await api(`/sessions/${sessionId}/history`))).body,
      (h) =>
        h.originalMessageCount === session.messages.length &&
        h.fits === true &&
        h.compactedOnRead === false &&
        h.activeBlocks > 0,
      'the compacted history of the whole transcript',
    );
    expect(history.tokens).toBeLessThanOrEqual(history.budget);
    const full = (await json(await api(`/sessions/${sessionId}/history?view=full`))).body;
    expect(full.tokens).toBeGreaterThan(history.budget); // it really had to compact
    const effective = history.messages as ChatMessage[];
    expect(findToolPairViolations(effective, { allowPendingTail: true })).toEqual([]);
    const lastUser = [...session.messages].reverse().find((m) => m.role === 'user')!;
    const lastReply = [...session.messages].reverse().find((m) => m.role === 'assistant' && !m.toolCalls?.length)!;
    expect(effective).toContainEqual(lastUser);
    expect(effective).toContainEqual(lastReply);

    // The counter and the projected blocks converge once the compaction service is quiet: the counter counts
    // each block once (no double counting on retries or replays), and every block it counted is projected.
    const ledger = async () => {
      const { body: listed } = await json(await api(`/sessions/${sessionId}/blocks`));
      const metrics = await (await fetch(`${services.compaction.url}/metrics`)).text();
      return {
        projectedBlocks: listed.blocks.length as number,
        projectedSavings: listed.blocks.reduce(
          (sum: number, b: { tokensSaved: number }) => sum + b.tokensSaved,
          0,
        ) as number,
        createdBlocks: metricValue(metrics, 'ctxledger_blocks_created_total'),
        countedSavings: metricValue(metrics, 'ctxledger_tokens_saved_total'),
      };
    };
    const settled = await eventually(
      ledger,
      (l) => l.projectedBlocks > 0 && l.projectedBlocks === l.createdBlocks && l.projectedSavings === l.countedSavings,
      'the tokens-saved counter to equal the projected blocks savings',
      60_000,
    );
    expect(settled.countedSavings).toBe(settled.projectedSavings);
    expect(settled.countedSavings).toBeGreaterThan(0);
  });

  it('a raw producer hashing keys differently (kcat: CRC32) and HTTP writes (murmur2) keep one session in one order', async () => {
    const chat = transcript('claude-code:0ccf1a04-1b4c-43b6-8aa5-79e41db43a68');
    const sessionId = unique('mixed');
    const half = Math.floor(chat.messages.length / 2);
    const forwarded = async () =>
      metricValue(
        await (await fetch(`${services.compaction.url}/metrics`)).text(),
        `ctxledger_events_consumed_total{topic="${prefix}.session-events",outcome="forwarded"`,
      );
    const forwardedBefore = await forwarded();
    const lines = chat.messages
      .slice(0, half)
      .map(
        (m, i) =>
          `${sessionId}\t${JSON.stringify({ type: 'message.appended', sessionId, data: { ...m, clientMessageId: `k${i}` } })}`,
      );
    execFileSync('kcat', ['-P', '-b', testStack().brokers[0], '-t', `${prefix}.session-events`, '-K', '\t'], {
      input: lines.join('\n') + '\n',
    });
    await eventually(
      async () => (await json(await api(`/sessions/${sessionId}/history?view=full`))).body,
      (h) => h.originalMessageCount === half,
      'the kcat half, forwarded to its key partition and projected',
    );

    const posted = await json(
      await api(`/sessions/${sessionId}/messages`, {
        method: 'POST',
        body: JSON.stringify({ messages: chat.messages.slice(half) }),
      }),
    );
    expect(posted.status).toBe(202);
    const full = (await json(await api(`/sessions/${sessionId}/history?view=full&after=${posted.body.waitToken}`)))
      .body;
    // One partition, one order: every message once, in the order written, the HTTP ones after kcat's.
    expect(full.messages).toEqual(chat.messages);

    // kcat's default partitioner (librdkafka consistent_random) is CRC32 of the key; ours is murmur2.
    const misplaced = crc32(sessionId) % 6 !== keyPartition(`${prefix}.session-events`, sessionId, 6);
    expect((await forwarded()) - forwardedBefore).toBe(misplaced ? half : 0);
  });

  it('over HTTP: read-your-writes, a retried POST adds nothing, manual compaction, revert restores, overflow report', async () => {
    const chat = transcript('claude-code:0ccf1a04-1b4c-43b6-8aa5-79e41db43a68');
    const sessionId = unique('http');
    const configure = (contextWindow: number) =>
      api(`/sessions/${sessionId}/config`, {
        method: 'PUT',
        body: JSON.stringify({ provider: 'anthropic', contextWindow, maxOutputTokens: 1_000, threshold: 0.95 }),
      });
    expect((await configure(1_000_000)).status).toBe(202);
    const post = () =>
      api(`/sessions/${sessionId}/messages`, {
        method: 'POST',
        headers: { 'idempotency-key': 'batch-1' },
        body: JSON.stringify({ messages: chat.messages }),
      });
    const first = await json(await post());
    expect(first.status).toBe(202);
    const retry = await json(await post());
    expect(retry.status).toBe(202);

    const read = await json(await api(`/sessions/${sessionId}/history?view=full&after=${retry.body.waitToken}`));
    expect(read.status).toBe(200);
    expect(read.body.originalMessageCount).toBe(chat.messages.length); // read-your-writes, and the retry added nothing

    // Now a window in which the chat takes 80% of the history budget: under the threshold (0.95), so nothing
    // compacts by itself, but over the target (0.6), so a manual compaction has work to do.
    const reconfigured = await json(await configure(Math.ceil(read.body.tokens / 0.8) + 1_000));
    const before = (await json(await api(`/sessions/${sessionId}/history?after=${reconfigured.body.waitToken}`))).body;
    expect(before.activeBlocks).toBe(0);
    expect(before.usageRatio).toBeGreaterThan(0.7);

    expect((await api(`/sessions/${sessionId}/compactions`, { method: 'POST' })).status).toBe(202);
    const compacted = await eventually(
      async () => (await json(await api(`/sessions/${sessionId}/history`))).body,
      (h) => h.activeBlocks > 0,
      'the manual compaction',
    );
    expect(compacted.tokens).toBeLessThan(before.tokens);

    const { body: listed } = await json(await api(`/sessions/${sessionId}/blocks`));
    const active = listed.blocks.filter((b: { active: boolean }) => b.active);
    for (const block of active) {
      expect((await api(`/sessions/${sessionId}/blocks/${block.id}/revert`, { method: 'POST' })).status).toBe(202);
    }
    const restored = await eventually(
      async () => (await json(await api(`/sessions/${sessionId}/history`))).body,
      (h) => h.activeBlocks === 0,
      'the reverts',
    );
    expect(restored.messages).toEqual(before.messages);

    const notOverflow = await json(
      await api(`/sessions/${sessionId}/overflow`, {
        method: 'POST',
        body: JSON.stringify({ errorText: '429 RESOURCE_EXHAUSTED: quota exceeded' }),
      }),
    );
    expect(notOverflow.status).toBe(422);
    const overflow = await api(`/sessions/${sessionId}/overflow`, {
      method: 'POST',
      body: JSON.stringify({ errorText: 'prompt is too long: 215000 tokens > 200000 maximum' }),
    });
    expect(overflow.status).toBe(202);
    const afterOverflow = await eventually(
      async () => (await json(await api(`/sessions/${sessionId}/history`))).body,
      (h) => h.activeBlocks > 0,
      'the emergency compaction',
    );
    expect(afterOverflow.tokens).toBeLessThan(before.tokens);
    expect(findToolPairViolations(afterOverflow.messages as ChatMessage[], { allowPendingTail: true })).toEqual([]);
  });
});
