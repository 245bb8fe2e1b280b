import { classifyProviderError } from '@ctxledger/context-engine';
import type { RetrySettings } from '../config/summarizer-settings';
import { MalformedResponseError, ProviderTimeoutError } from '../providers/llm-client';

export type CallFailureKind =
  'overflow' | 'rate-limit' | 'auth' | 'network' | 'timeout' | 'malformed' | 'server' | 'other';

/** Why a provider call failed, and whether the same call may succeed later. */
export interface CallFailure {
  readonly kind: CallFailureKind;
  readonly retryable: boolean;
  /** A short description for logs and `summary.failed` (secrets already redacted by the caller's `redact`). */
  readonly message: string;
  readonly status?: number;
  /** What the provider asked us to wait (retry-after header, Gemini's retryDelay, "try again in 1.2s"). */
  readonly retryAfterMs?: number;
  /** Overflow: the sizes the provider stated. */
  readonly actualTokens?: number;
  readonly limitTokens?: number;
}

/**
 * Classifies what a provider call threw. SDK errors go through the engine's `classifyProviderError` (overflow
 * and auth are never retried; rate limits, 5xx and network errors are); our own timeout and malformed answers
 * are recognized first.
 */
export function describeFailure(error: unknown, timedOut: boolean, redact: (s: string) => string): CallFailure {
  const message = redact(errorText(error)).slice(0, 1000);
  if (timedOut || error instanceof ProviderTimeoutError) {
    return {
      kind: 'timeout',
      retryable: true,
      message: error instanceof ProviderTimeoutError ? error.message : `timeout: ${message}`,
    };
  }
  if (error instanceof MalformedResponseError) return { kind: 'malformed', retryable: error.retryable, message };
  const c = classifyProviderError(error);
  const retryAfterMs = retryAfterMsOf(error);
  const kind: CallFailureKind = c.kind === 'other' && c.status !== undefined && c.status >= 500 ? 'server' : c.kind;
  return {
    kind,
    retryable: c.retryable,
    message,
    ...(c.status !== undefined && { status: c.status }),
    ...(retryAfterMs !== undefined && { retryAfterMs }),
    ...(c.actualTokens !== undefined && { actualTokens: c.actualTokens }),
    ...(c.limitTokens !== undefined && { limitTokens: c.limitTokens }),
  };
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const causeText = cause instanceof Error ? ` (cause: ${cause.message})` : '';
    return `${error.message}${causeText}`;
  }
  return String(error);
}

/** The wait the provider asked for, in ms: `retry-after-ms`, `retry-after` (seconds or HTTP date), or the body's words. */
export function retryAfterMsOf(error: unknown, now: number = Date.now()): number | undefined {
  const headers = (error as { headers?: unknown } | null)?.headers;
  const get = (name: string): string | undefined => {
    if (!headers || typeof headers !== 'object') return undefined;
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
    const value = (headers as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  const ms = Number(get('retry-after-ms'));
  if (get('retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const after = get('retry-after');
  if (after !== undefined) {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  const delay = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(text);
  if (delay) return Number(delay[1]) * 1000;
  const words = /(?:try again|retry) (?:in|after) (\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b/i.exec(text);
  if (words) return Number(words[1]) * (words[2] === 'ms' ? 1 : 1000);
  return undefined;
}

/**
 * The wait before attempt `attempt + 1`: exponential from the base with jitter ("equal jitter": half fixed,
 * half random), capped; a provider's retry-after is honoured (never waited less), and when it asks for more
 * than the cap the call gives up (undefined) rather than block the partition.
 */
export function retryDelayMs(
  attempt: number,
  retry: RetrySettings,
  random: () => number,
  retryAfterMs?: number,
): number | undefined {
  const exponential = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exponential / 2 + (exponential / 2) * random();
  if (retryAfterMs === undefined) return Math.round(jittered);
  if (retryAfterMs > retry.maxDelayMs) return undefined;
  // A little jitter on top, so that callers told the same retry-after do not all come back at once.
  return Math.round(retryAfterMs + Math.min(retry.baseDelayMs, 1000) * random() * 0.25);
}

export interface CallPolicy {
  readonly retry: RetrySettings;
  readonly timeoutMs: number;
  readonly redact: (text: string) => string;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  /** Wraps each attempt (the provider's concurrency limit): sleeping between attempts holds no slot. */
  readonly limit: <T>(task: () => Promise<T>) => Promise<T>;
  readonly onAttempt?: (outcome: CallFailureKind | 'ok', seconds: number) => void;
  readonly onRetry?: (failure: CallFailure, delayMs: number, attempt: number) => void;
}

export type CallResult<T> =
  | { readonly ok: true; readonly value: T; readonly attempts: number }
  | { readonly ok: false; readonly failure: CallFailure; readonly attempts: number };

/** Runs `call` with a per-attempt timeout, retrying what may succeed later with backoff. Never throws. */
export async function callWithRetries<T>(
  call: (signal: AbortSignal) => Promise<T>,
  policy: CallPolicy,
): Promise<CallResult<T>> {
  for (let attempt = 1; ; attempt++) {
    const controller = new AbortController();
    let timedOut = false;
    const started = performance.now();
    const outcome = await policy.limit(async () => {
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new ProviderTimeoutError(policy.timeoutMs));
      }, policy.timeoutMs);
      try {
        // The race makes the timeout hold even if an SDK ignored the signal.
        const aborted = new Promise<never>((_, reject) =>
          controller.signal.addEventListener('abort', () => reject(new ProviderTimeoutError(policy.timeoutMs)), {
            once: true,
          }),
        );
        aborted.catch(() => undefined);
        const value = await Promise.race([call(controller.signal), aborted]);
        return { ok: true as const, value };
      } catch (error) {
        return { ok: false as const, failure: describeFailure(error, timedOut, policy.redact) };
      } finally {
        clearTimeout(timer);
      }
    });
    const seconds = (performance.now() - started) / 1000;
    policy.onAttempt?.(outcome.ok ? 'ok' : outcome.failure.kind, seconds);
    if (outcome.ok) return { ok: true, value: outcome.value, attempts: attempt };

    const { failure } = outcome;
    if (!failure.retryable || attempt >= policy.retry.maxAttempts) return { ok: false, failure, attempts: attempt };
    const delay = retryDelayMs(attempt, policy.retry, policy.random, failure.retryAfterMs);
    if (delay === undefined) {
      return {
        ok: false,
        failure: {
          ...failure,
          message: `${failure.message} (the provider asks to wait ${Math.ceil((failure.retryAfterMs ?? 0) / 1000)} s, over the retry cap)`,
        },
        attempts: attempt,
      };
    }
    policy.onRetry?.(failure, delay, attempt);
    await policy.sleep(delay);
  }
}
