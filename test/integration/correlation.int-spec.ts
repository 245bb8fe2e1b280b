import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { Consumer, IHeaders } from 'kafkajs';
import { topicNames, type AnyEvent } from '@ctxledger/contracts';
import { CORRELATION_HEADER } from '@ctxledger/observability';
import { repoRoot } from '../../tools/local-stack';
import { testConsumer, testKafka } from '../support/kafka-helpers';
import { testStack, unique } from '../support/stack-settings';
import { transcript } from '../support/transcripts';
import { withDatabase } from './session-harness';

/**
 * Issue #6 on the real stack: one HTTP request's correlation id, given as X-Request-Id, is in the JSON log lines
 * of all three services and in the Kafka headers of every record the request caused — its messages, the summary
 * request, the summary result and the summary block — as the services run for real (built, LOG_FORMAT=json).
 */

interface JsonService {
  readonly name: string;
  readonly url: string;
  /** stdout so far, as lines. */
  stdoutLines(): string[];
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts a built service with JSON logs; stdout is kept apart from stderr (the lines are asserted on). */
async function startJsonService(name: string, env: Record<string, string>, timeoutMs = 90_000): Promise<JsonService> {
  const child: ChildProcess = spawn(process.execPath, [resolve(repoRoot, `dist/apps/${name}/main.js`)], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', ...env, LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start:\n${stdout}\n${stderr}`)), timeoutMs);
    const check = () => {
      for (const line of stdout.split('\n')) {
        const match = /listening on (http:\/\/\S+)$/.exec(tryJson(line)?.message?.toString() ?? '');
        if (match) {
          clearTimeout(timer);
          return done(match[1]!.replace('[::1]', '127.0.0.1'));
        }
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited with ${code} before listening:\n${stdout}\n${stderr}`));
    });
  });
  return {
    name,
    url,
    stdoutLines: () => stdout.split('\n').filter((l) => l.length > 0),
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

type LogLine = Record<string, unknown> & { message?: unknown; correlationId?: string; sessionId?: string };

function tryJson(line: string): LogLine | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as LogLine) : undefined;
  } catch {
    return undefined;
  }
}

interface Consumed {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly correlationId?: string;
  readonly event: AnyEvent;
}

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('correlation ids: HTTP → Kafka → the three services, in JSON logs and record headers', () => {
  const prefix = unique('corr').replace(/-/g, '_');
  const topics = topicNames(prefix);
  const env = {
    TOPIC_PREFIX: prefix,
    MONGODB_URI: withDatabase(testStack().mongoUri, prefix.slice(0, 60)),
    SUMMARY_TIMEOUT_MS: '60000',
  };
  const kafka = testKafka('correlation-test');
  const services: Record<'session' | 'compaction' | 'summarizer', JsonService> = {} as never;
  const records: Consumed[] = [];
  let reader: Consumer | undefined;

  beforeAll(async () => {
    // The compaction service first: it creates the topics of this prefix before anyone subscribes.
    services.compaction = await startJsonService('compaction-service', env);
    [services.session, services.summarizer] = await Promise.all([
      startJsonService('session-service', env),
      startJsonService('summarizer-service', env),
    ]);
    reader = testConsumer(kafka, 'correlation-reader');
    await reader.connect();
    await reader.subscribe({
      topics: [topics.sessionEvents, topics.blocks, topics.summaryRequests],
      fromBeginning: true,
    });
    await reader.run({
      eachMessage: async ({ topic, partition, message }) => {
        const headers: IHeaders = message.headers ?? {};
        records.push({
          topic,
          partition,
          offset: message.offset,
          correlationId: headers[CORRELATION_HEADER]?.toString(),
          event: JSON.parse(message.value!.toString()) as AnyEvent,
        });
      },
    });
  }, 240_000);

  afterAll(async () => {
    await reader?.disconnect();
    await Promise.all(Object.values(services).map((s) => s.stop()));
  });

  const logLines = (service: JsonService) => service.stdoutLines().map((l) => tryJson(l));
  const linesWith = (service: JsonService, correlationId: string) =>
    logLines(service).filter((l): l is LogLine => l?.correlationId === correlationId);
  const messageOf = (l: LogLine) => String(l.message);

  it('an X-Request-Id is echoed and travels through the messages, the summary request and result, and the summary block', async () => {
    const requestId = unique('req');
    const sessionId = unique('corr-s');
    const chat = transcript('claude-code:0ccf1a04-1b4c-43b6-8aa5-79e41db43a68');
    const call = (method: string, path: string, body: unknown, id: string) =>
      fetch(`${services.session.url}/v1/sessions/${sessionId}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-request-id': id },
        body: JSON.stringify(body),
      });

    // A window the conversation overflows: the compaction service asks for a summary (as in the compaction tests).
    const configured = await call(
      'PUT',
      '/config',
      { provider: 'anthropic', contextWindow: 9_000, maxOutputTokens: 1_000, systemPromptTokens: 500 },
      `${requestId}-config`,
    );
    expect(configured.status).toBe(202);
    expect(configured.headers.get('x-request-id')).toBe(`${requestId}-config`);
    const posted = await call('POST', '/messages', { messages: chat.messages }, requestId);
    expect(posted.status).toBe(202);
    expect(posted.headers.get('x-request-id')).toBe(requestId);
    expect(posted.headers.get('x-correlation-id')).toBe(requestId);

    const ofSession = (topic: string, type: string) =>
      records.filter((r) => r.topic === topic && r.event.sessionId === sessionId && r.event.type === type);
    const summaryBlock = await until(
      () =>
        ofSession(topics.blocks, 'block.created').find(
          (r) => (r.event.data as { block: { stage: string } }).block.stage === 'summary',
        ),
      'a summary block of the session',
    );
    await until(
      () => (linesWith(services.summarizer, requestId).length > 0 ? true : undefined),
      "the summarizer's log line",
    );
    // A service logs what it published once Kafka acknowledged it: the record can reach the reader first.
    await until(
      () =>
        linesWith(services.compaction, requestId).some((l) => messageOf(l).includes(summaryBlock.event.eventId))
          ? true
          : undefined,
      "the compaction service's log line of the summary block",
    );

    // Kafka: every record the request caused carries its id; the configuration its own.
    const appended = ofSession(topics.sessionEvents, 'message.appended');
    expect(appended).toHaveLength(chat.messages.length);
    expect(new Set(appended.map((r) => r.correlationId))).toEqual(new Set([requestId]));
    expect(ofSession(topics.sessionEvents, 'session.configured').map((r) => r.correlationId)).toEqual([
      `${requestId}-config`,
    ]);
    const requests = ofSession(topics.summaryRequests, 'summary.requested');
    expect(requests.length).toBeGreaterThan(0);
    expect(new Set(requests.map((r) => r.correlationId))).toEqual(new Set([requestId]));
    const completed = ofSession(topics.sessionEvents, 'summary.completed');
    expect(completed.length).toBeGreaterThan(0);
    expect(new Set(completed.map((r) => r.correlationId))).toEqual(new Set([requestId]));
    expect(summaryBlock.correlationId).toBe(requestId);
    expect(new Set(ofSession(topics.blocks, 'block.created').map((r) => r.correlationId))).toEqual(
      new Set([requestId]),
    );

    // Logs: the same id in the log lines of all three services, with the session id.
    const session = linesWith(services.session, requestId);
    expect(session).toContainEqual(
      expect.objectContaining({
        service: 'session-service',
        context: 'HTTP',
        sessionId,
        message: expect.stringMatching(new RegExp(`^POST /v1/sessions/${sessionId}/messages 202 \\d+ ms$`)),
      }),
    );
    const compaction = linesWith(services.compaction, requestId);
    const requestId0 = (requests[0]!.event.data as { requestId: string }).requestId;
    expect(compaction).toContainEqual(
      expect.objectContaining({
        service: 'compaction-service',
        sessionId,
        message: expect.stringContaining(`summary.requested ${requestId0}`),
      }),
    );
    expect(compaction).toContainEqual(
      expect.objectContaining({
        service: 'compaction-service',
        sessionId,
        message: expect.stringContaining(`block.created ${summaryBlock.event.eventId} (summary,`),
      }),
    );
    expect(linesWith(services.summarizer, requestId)).toContainEqual(
      expect.objectContaining({
        service: 'summarizer-service',
        sessionId,
        message: expect.stringMatching(new RegExp(`^${requestId0}: summary by offline`)),
      }),
    );
    // The configuration request's id stays on its own work.
    for (const line of [...compaction, ...linesWith(services.summarizer, requestId)]) {
      expect(messageOf(line)).not.toContain(`${requestId}-config`);
    }
    expect(linesWith(services.session, `${requestId}-config`)).toContainEqual(
      expect.objectContaining({ message: expect.stringMatching(/^PUT \/v1\/sessions\/.+\/config 202/) }),
    );
  });

  it('a record without the header (a raw producer) gets a derived id that its logs and its result carry', async () => {
    const sessionId = unique('corr-raw');
    const requestId = unique('raw-request');
    const producer = kafka.producer();
    await producer.connect();
    try {
      // The documented JSON without eventId, and no headers: what kcat would publish.
      const value = JSON.stringify({
        type: 'summary.requested',
        sessionId,
        data: {
          requestId,
          range: { from: 0, to: 3 },
          messages: [
            { role: 'user', content: 'Please look at the failing test in src/app.ts.' },
            { role: 'assistant', content: 'The assertion compares strings with numbers; I will fix the parser.' },
            { role: 'user', content: 'Good, go ahead and run the tests afterwards.' },
            { role: 'assistant', content: 'Fixed the parser; all 12 tests pass now.' },
          ],
          maxSummaryTokens: 200,
        },
      });
      const [meta] = await producer.send({ topic: topics.summaryRequests, messages: [{ key: sessionId, value }] });
      const derived = `${topics.summaryRequests}/${meta!.partition}/${meta!.baseOffset}`;

      const result = await until(
        () =>
          records.find(
            (r) =>
              r.topic === topics.sessionEvents &&
              r.event.type === 'summary.completed' &&
              r.event.data.requestId === requestId,
          ),
        'the summary result',
      );
      expect(result.correlationId).toBe(derived);
      const logged = await until(
        () => linesWith(services.summarizer, derived).find((l) => messageOf(l).startsWith(`${requestId}:`)),
        "the summarizer's log line",
      );
      expect(logged).toMatchObject({ service: 'summarizer-service', sessionId, level: 'log' });
    } finally {
      await producer.disconnect();
    }
  });

  it('an unusable X-Request-Id is replaced by a generated id, echoed and logged', async () => {
    const res = await fetch(`${services.session.url}/v1/sessions/nobody-${Date.now()}/history`, {
      headers: { 'x-request-id': 'not a safe id"}' },
    });
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await until(
      () => (linesWith(services.session, id).some((l) => l.context === 'HTTP') ? true : undefined),
      'the access line',
      10_000,
    );
    expect(services.session.stdoutLines().join('\n')).not.toContain('not a safe id');
  });

  it('every line each service wrote to stdout is one JSON object with timestamp, level, service, context, message', () => {
    for (const service of Object.values(services)) {
      const lines = service.stdoutLines();
      expect(lines.length).toBeGreaterThan(3);
      for (const line of lines) {
        const parsed = tryJson(line);
        expect({ service: service.name, line, parsed: parsed !== undefined }).toEqual({
          service: service.name,
          line,
          parsed: true,
        });
        expect(parsed).toEqual(
          expect.objectContaining({
            timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
            level: expect.stringMatching(/^(log|warn|debug|verbose|fatal)$/),
            service: service.name,
            context: expect.any(String),
            message: expect.anything(),
          }),
        );
      }
      // No secret of the environment in any line (the database URI has no password here; check the shape).
      expect(lines.join('\n')).not.toMatch(/:\/\/[^/\s"]+:[^/\s"]+@/);
    }
  });
});
