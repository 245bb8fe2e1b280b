/**
 * @outage stops its outage stack's broker for 20 s under four writers.
 */
import { FaultRun } from '../support/fault/fault-run';
import { quiescent } from '../support/fault/pipeline';
import { readTopic } from '../support/kafka-helpers';
import type { RunningService } from '../support/service-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Message {
  role: 'user' | 'assistant';
  content: string;
  clientMessageId?: string;
}

/**
 * A client following the retry rule of the API description: every request carries a key (an Idempotency-Key,
 * or a clientMessageId on every message); a 503 with `outcome: "unknown"` is retried with the same body and
 * the key the answer names, after Retry-After; so is a refused connection. Records every answer.
 */
class RuleFollowingWriter {
  readonly answers = { requests: 0, accepted: 0, unknown: 0, refusedConnections: 0 };
  /** Answers against the rule, by kind, with the first example of each. */
  readonly unexpected = new Map<string, { count: number; example: string }>();

  private against(kind: string, example: string): void {
    const seen = this.unexpected.get(kind);
    this.unexpected.set(kind, { count: (seen?.count ?? 0) + 1, example: seen?.example ?? example.slice(0, 300) });
  }
  private sent = 0;

  constructor(
    readonly sessionId: string,
    readonly messages: readonly Message[],
    /** `header`: an Idempotency-Key per request; `clientMessageIds`: only the ids on the messages. */
    readonly keying: 'header' | 'clientMessageIds',
    private readonly url: () => string,
  ) {}

  done(): boolean {
    return this.sent >= this.messages.length;
  }

  async step(): Promise<void> {
    const count = Math.min(1 + (this.sent % 3), this.messages.length - this.sent);
    const body = JSON.stringify({ messages: this.messages.slice(this.sent, this.sent + count) });
    let key: string | undefined = this.keying === 'header' ? `req-${this.sent}` : undefined;
    for (;;) {
      this.answers.requests++;
      let res: Response;
      let text: string;
      try {
        res = await fetch(`${this.url()}/v1/sessions/${this.sessionId}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key !== undefined && { 'idempotency-key': key }) },
          body,
          signal: AbortSignal.timeout(30_000),
        });
        text = await res.text();
      } catch {
        this.answers.refusedConnections++;
        await sleep(500);
        continue;
      }
      const answer = JSON.parse(text) as { outcome?: string; idempotencyKey?: string | null };
      if (res.status === 202) {
        this.answers.accepted++;
        if (answer.idempotencyKey === null || answer.idempotencyKey === undefined)
          this.against('202 without the key it was taken under', text);
        this.sent += count;
        return;
      }
      const retryAfter = Number(res.headers.get('retry-after'));
      if (res.status !== 503 || answer.outcome !== 'unknown' || !answer.idempotencyKey || !(retryAfter > 0)) {
        this.against(
          res.status === 503 ? '503 without outcome unknown, the key or Retry-After' : `${res.status}`,
          `retry-after=${res.headers.get('retry-after')} ${text}`,
        );
        await sleep(1000);
        continue;
      }
      this.answers.unknown++;
      if (key !== undefined && answer.idempotencyKey !== key)
        this.against('503 naming another key', `${answer.idempotencyKey} for ${key}`);
      key = answer.idempotencyKey; // the rule: the same body under the key the answer names
      await sleep(retryAfter * 1000);
    }
  }
}

describe('session service: writes during a broker outage have an unknown outcome, and the retry rule stores each once (the outage stack)', () => {
  const run = new FaultRun('session-outage-retry', 'or', 'outage');
  const { stack } = run;
  let session: RunningService | undefined;

  beforeAll(async () => {
    await run.up({ KAFKA_SEND_TIMEOUT_MS: '2000' });
    session = await run.start('session-service');
  }, 240_000);

  afterAll(() => run.down(), 120_000);

  it('four writers, 600 messages, the broker stopped for 20 s: every message stored exactly once', async () => {
    const writers = [0, 1, 2, 3].map((w) => {
      const keying = w % 2 === 0 ? 'header' : 'clientMessageIds';
      const messages: Message[] = Array.from({ length: 150 }, (_, i) => ({
        role: i % 2 === 0 ? 'user' : 'assistant',
        content: `writer ${w} message ${i}`,
        ...(keying === 'clientMessageIds' && { clientMessageId: `w${w}-m${i}` }),
      }));
      return new RuleFollowingWriter(`outage-${w}`, messages, keying, () => session!.url);
    });
    const writing = writers.map(async (w) => {
      while (!w.done()) {
        await w.step();
        await sleep(120);
      }
    });
    const outage = (async () => {
      await sleep(2500);
      await stack.kafkaStop();
      await sleep(20_000);
      await stack.kafkaStart();
    })();
    await Promise.all([...writing, outage]);

    const kafka = stack.kafka('outage-retry');
    await quiescent(kafka, [[run.groups.session, run.topics.sessionEvents]], 'the projector to catch up');
    const histories = new Map<string, string[]>();
    for (const w of writers) {
      const res = await fetch(`${session!.url}/v1/sessions/${w.sessionId}/history?view=full`);
      const history = (await res.json()) as { messages: Array<{ content: string }> };
      histories.set(
        w.sessionId,
        history.messages.map((m) => m.content),
      );
    }
    const stored = [...histories.values()].flat();
    // The log: appends whose try was answered 503 and was written all the same (deduplicated by the projection).
    const log = (await readTopic(kafka, run.topics.sessionEvents)).filter((r) => r.event.type === 'message.appended');
    const distinct = new Set(
      log.map((r) => `${r.event.sessionId}/${(r.event.data as { clientMessageId?: string }).clientMessageId}`),
    );
    const sum = (f: (w: RuleFollowingWriter) => number) => writers.reduce((n, w) => n + f(w), 0);
    const unknown = sum((w) => w.answers.unknown);
    const unexpected: Record<string, { count: number; example: string }> = {};
    for (const w of writers) {
      for (const [kind, { count, example }] of w.unexpected) {
        unexpected[kind] = {
          count: (unexpected[kind]?.count ?? 0) + count,
          example: unexpected[kind]?.example ?? example,
        };
      }
    }
    const others = Object.values(unexpected).reduce((n, u) => n + u.count, 0);
    console.log(
      `session-outage-retry: ${sum((w) => w.messages.length)} messages, ${sum((w) => w.answers.requests)} requests, ` +
        `${sum((w) => w.answers.accepted)} answered 202, ${unknown} answered 503 outcome unknown, ` +
        `${sum((w) => w.answers.refusedConnections)} refused connections, ${others} other answers; ` +
        `${stored.length} stored, ${stored.length - new Set(stored).size} duplicates stored; ${log.length} message ` +
        `events in the log for ${distinct.size} messages (${log.length - distinct.size} more: tries answered 503 that ` +
        'were written all the same, each deduplicated)',
    );

    // Every answer was 202, or 503 saying the outcome is unknown, with Retry-After and the key to retry with.
    expect(unexpected).toEqual({});
    expect(unknown).toBeGreaterThan(0); // the outage was met
    for (const w of writers) {
      // Every message once, in order: nothing lost, nothing doubled by the retries.
      expect(histories.get(w.sessionId)).toEqual(w.messages.map((m) => m.content));
    }
    expect(stored).toHaveLength(600);
    expect(distinct.size).toBe(600);
    expect(session!.process.exitCode).toBeNull();
  }, 300_000);
});
