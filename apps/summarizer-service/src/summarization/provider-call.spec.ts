import { MalformedResponseError } from '../providers/llm-client';
import { callWithRetries, describeFailure, retryAfterMsOf, retryDelayMs, type CallPolicy } from './provider-call';

const retry = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000 };

function httpError(status: number, body: unknown, headers: Record<string, string> = {}) {
  return Object.assign(new Error(`${status} ${JSON.stringify(body)}`), {
    status,
    error: body,
    headers: new Headers(headers),
  });
}

describe('retryAfterMsOf', () => {
  it.each([
    ['retry-after-ms header', httpError(429, {}, { 'retry-after-ms': '250' }), 250],
    ['retry-after seconds', httpError(429, {}, { 'retry-after': '3' }), 3000],
    ['retry-after HTTP date', httpError(429, {}, { 'retry-after': new Date(10_000 + 5000).toUTCString() }), 5000],
    ["Gemini's RetryInfo", new Error('{"error":{"details":[{"retryDelay":"7s"}]}}'), 7000],
    ["OpenAI's words", new Error('Please try again in 1.5s. Visit …'), 1500],
    ['milliseconds in words', new Error('Please try again in 820ms.'), 820],
    ['nothing', new Error('boom'), undefined],
  ])('%s', (_, error, expected) => {
    expect(retryAfterMsOf(error, 10_000)).toBe(expected);
  });
});

describe('retryDelayMs', () => {
  it('grows exponentially with equal jitter, capped', () => {
    expect(retryDelayMs(1, retry, () => 0)).toBe(50);
    expect(retryDelayMs(1, retry, () => 1)).toBe(100);
    expect(retryDelayMs(3, retry, () => 1)).toBe(400);
    expect(retryDelayMs(10, retry, () => 1)).toBe(1000);
    expect(retryDelayMs(10, retry, () => 0)).toBe(500);
  });

  it('never waits less than the retry-after, and gives up when it is over the cap', () => {
    expect(retryDelayMs(1, retry, () => 0, 800)).toBe(800);
    expect(retryDelayMs(1, retry, () => 1, 800)).toBeLessThanOrEqual(800 + 25);
    expect(retryDelayMs(1, retry, () => 0.5, 1500)).toBeUndefined();
  });
});

describe('describeFailure', () => {
  const redact = (s: string) => s.replace('SECRET', '[redacted]');
  it.each([
    [
      httpError(400, {
        error: { code: 'context_length_exceeded', message: "This model's maximum context length is 8192 tokens" },
      }),
      'overflow',
      false,
    ],
    [httpError(401, { error: { message: 'invalid x-api-key' } }), 'auth', false],
    [httpError(429, { error: { message: 'Rate limit reached' } }), 'rate-limit', true],
    [httpError(503, { error: { message: 'upstream unavailable' } }), 'server', true],
    [Object.assign(new Error('fetch failed'), { cause: new Error('ECONNREFUSED') }), 'network', true],
    [new MalformedResponseError('not JSON'), 'malformed', true],
    [new MalformedResponseError('refused', false), 'malformed', false],
  ])('%s → %s', (error, kind, retryable) => {
    expect(describeFailure(error, false, redact)).toMatchObject({ kind, retryable });
  });

  it('our timeout wins over whatever the aborted SDK threw, and secrets are redacted', () => {
    expect(describeFailure(new Error('Request was aborted. SECRET'), true, redact)).toMatchObject({
      kind: 'timeout',
      retryable: true,
      message: 'timeout: Request was aborted. [redacted]',
    });
  });
});

describe('callWithRetries', () => {
  const sleeps: number[] = [];
  const policy = (over: Partial<CallPolicy> = {}): CallPolicy => ({
    retry,
    timeoutMs: 1000,
    redact: (s) => s,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    limit: (task) => task(),
    ...over,
  });
  beforeEach(() => (sleeps.length = 0));

  const failing = (...errors: unknown[]) => {
    let calls = 0;
    const fn = async () => {
      const e = errors[calls++];
      if (e) throw e;
      return 'ok';
    };
    return { fn, calls: () => calls };
  };

  it('retries rate limits honouring retry-after, then succeeds', async () => {
    const call = failing(httpError(429, { error: { message: 'slow down' } }, { 'retry-after': '0.5' }));
    const result = await callWithRetries(call.fn, policy());
    expect(result).toEqual({ ok: true, value: 'ok', attempts: 2 });
    expect(sleeps[0]).toBeGreaterThanOrEqual(500);
  });

  it('does not retry an overflow or an auth error', async () => {
    for (const error of [
      httpError(400, { error: { message: 'prompt is too long: 300000 tokens > 200000 maximum' } }),
      httpError(401, {}),
    ]) {
      const call = failing(error, error);
      const result = await callWithRetries(call.fn, policy());
      expect(result.ok).toBe(false);
      expect(call.calls()).toBe(1);
    }
    expect(sleeps).toEqual([]);
  });

  it('stops after maxAttempts, with the last failure', async () => {
    const e = httpError(500, { error: { message: 'oops' } });
    const call = failing(e, e, e, e, e);
    const result = await callWithRetries(call.fn, policy());
    expect(result).toMatchObject({ ok: false, attempts: 4, failure: { kind: 'server', retryable: true } });
    expect(call.calls()).toBe(4);
    expect(sleeps).toEqual([75, 150, 300]);
  });

  it('times out a call that ignores its abort signal', async () => {
    let calls = 0;
    const result = await callWithRetries(
      () => {
        calls++;
        return new Promise<string>(() => undefined);
      },
      policy({ timeoutMs: 20, retry: { ...retry, maxAttempts: 2 } }),
    );
    expect(result).toMatchObject({ ok: false, attempts: 2, failure: { kind: 'timeout', retryable: true } });
    expect(calls).toBe(2);
  });
});
