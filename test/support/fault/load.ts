import type { Admin, Kafka } from 'kafkajs';
import { DEFAULT_SESSION_TIMEOUT_MS } from '@ctxledger/kafka';
import type { ChatMessage } from '@ctxledger/context-engine';
import type { RunningService } from '../service-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Agents appending transcripts over HTTP at a steady total rate, one message per request, each with an
 * Idempotency-Key; a 503 (or a refused connection, or a timeout) is retried with the same key, as the API tells
 * a client to. Remembers, per session, the messages acknowledged (202), in order.
 */
export class SteadyLoad {
  readonly acked = new Map<string, ChatMessage[]>();
  readonly statuses = new Map<number, number>();
  readonly unexpected: string[] = [];
  private stopping = false;
  private running?: Promise<void>;

  constructor(
    private readonly sessions: ReadonlyArray<{ id: string; messages: readonly ChatMessage[] }>,
    private readonly url: () => string,
    /** Messages per second over all sessions. */
    private readonly rate: number,
  ) {
    for (const s of sessions) this.acked.set(s.id, []);
  }

  /** Configures the sessions, then writes until stop() or the transcripts run out. */
  async start(config: Record<string, unknown>): Promise<void> {
    for (const s of this.sessions) {
      const res = await fetch(`${this.url()}/v1/sessions/${s.id}/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(config),
      });
      if (res.status !== 202) throw new Error(`configuring ${s.id} answered ${res.status}: ${await res.text()}`);
    }
    const interval = (1000 * this.sessions.length) / this.rate;
    this.running = Promise.all(
      this.sessions.map(async (s, i) => {
        await sleep((interval * i) / this.sessions.length);
        for (let next = 0; next < s.messages.length && !this.stopping; next++) {
          const started = Date.now();
          await this.append(s.id, s.messages[next]!, `m-${next}`);
          await sleep(Math.max(0, interval - (Date.now() - started)));
        }
      }),
    ).then(() => undefined);
  }

  /** Lets each writer finish the request it is retrying, then stops. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  count(status: number): number {
    return this.statuses.get(status) ?? 0;
  }

  ackedTotal(): number {
    return [...this.acked.values()].reduce((n, m) => n + m.length, 0);
  }

  private async append(sessionId: string, message: ChatMessage, key: string): Promise<void> {
    for (;;) {
      let status = 0;
      let text: string;
      try {
        const res = await fetch(`${this.url()}/v1/sessions/${sessionId}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ messages: [message] }),
          signal: AbortSignal.timeout(15_000),
        });
        status = res.status;
        text = await res.text();
      } catch (error) {
        text = String(error);
      }
      this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
      if (status === 202) {
        this.acked.get(sessionId)!.push(message);
        return;
      }
      if (status !== 503 && status !== 0) this.unexpected.push(`${status}: ${text.slice(0, 300)}`);
      await sleep(300);
    }
  }
}

export interface HealthSample {
  readonly service: string;
  readonly at: number;
  readonly status: number;
  readonly ms: number;
  readonly body: any;
  /** After a 200: the service's consumer group as the broker described it right after (absent: no answer). */
  readonly group?: { state: string; members: number };
}

/**
 * Polls `/health` of each service, and right after each answer asks the broker how the service's consumer group
 * stands, so a test can compare what a service says about itself with what the cluster knows.
 */
export class HealthWatch {
  readonly samples: HealthSample[] = [];
  private stopping = false;
  private running?: Promise<void>;

  constructor(
    private readonly services: ReadonlyArray<{ name: string; service: () => RunningService; groupId: string }>,
    private readonly kafka: Kafka,
    private readonly everyMs = 500,
  ) {}
  private admin?: Promise<Admin>;

  start(): this {
    this.running = Promise.all(
      this.services.map(async ({ name, service, groupId }) => {
        while (!this.stopping) {
          const at = Date.now();
          let status = 0;
          let body: any;
          try {
            const res = await fetch(`${service().url}/health`, { signal: AbortSignal.timeout(10_000) });
            status = res.status;
            body = await res.json();
          } catch (error) {
            body = String(error);
          }
          const ms = Date.now() - at;
          // Only a 200 needs checking against the group (and asking a stopped broker would slow the sampling).
          const group = status === 200 ? await this.describe(groupId) : undefined;
          this.samples.push({ service: name, at, status, ms, body, ...(group && { group }) });
          await sleep(Math.max(0, this.everyMs - (Date.now() - at)));
        }
      }),
    ).then(() => undefined);
    return this;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
    await this.admin?.then((a) => a.disconnect()).catch(() => undefined);
  }

  of(service: string, from = 0, to = Infinity): HealthSample[] {
    return this.samples.filter((s) => s.service === service && s.at >= from && s.at < to);
  }

  private async describe(groupId: string): Promise<{ state: string; members: number } | undefined> {
    try {
      const admin = await (this.admin ??= (async () => {
        const a = this.kafka.admin({ retry: { retries: 0 } });
        await a.connect();
        return a;
      })());
      const { groups } = await Promise.race([
        admin.describeGroups([groupId]),
        sleep(2000).then(() => Promise.reject(new Error('timeout'))),
      ]);
      const g = groups[0];
      return g ? { state: g.state, members: g.members.length } : undefined;
    } catch {
      // A fresh client next time (the broker may have restarted meanwhile).
      const failed = this.admin;
      this.admin = undefined;
      await failed?.then((a) => a.disconnect()).catch(() => undefined);
      return undefined;
    }
  }
}

/**
 * The samples at which a service answered 200 while the broker said its consumer group had no member, in runs
 * lasting at least `minMs`. A consumer rejoining after its coordinator moved (a broker stopped) is running for
 * kafkajs while the group is empty; that is no fault for as long as the coordinator would itself wait for a silent
 * member (the session timeout) — 5.7 s was seen on a loaded machine, against a 5 s bound that made the check flaky;
 * then 13.5 s, before /health said so: it answers 503 once the group has not confirmed the consumer for a session
 * timeout (`unconfirmedSince`), which the group's empty stretch starts after. A consumer gone for good (what the check
 * is for) leaves a run that never ends.
 */
export function healthyWithoutConsumer(
  samples: readonly HealthSample[],
  minMs = DEFAULT_SESSION_TIMEOUT_MS,
): HealthSample[] {
  const lies: HealthSample[] = [];
  let streak: HealthSample[] = [];
  const flush = () => {
    if (streak.length > 1 && streak[streak.length - 1]!.at - streak[0]!.at >= minMs) lies.push(...streak);
    streak = [];
  };
  for (const s of samples) {
    if (s.status === 200 && s.group && s.group.members === 0) streak.push(s);
    else flush();
  }
  flush();
  return lies;
}
