import { createHash } from 'node:crypto';
import { IdempotencyConflictError } from '../session-errors';

/** Prefix of a key derived from the clientMessageIds of a request sent without an Idempotency-Key. */
export const DERIVED_KEY_PREFIX = 'cmid-';

/** JSON with the keys of every object sorted: the same body in another key order is the same request. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Fingerprint of a request body: one message or a batch of the same messages are the same request. */
export function requestFingerprint(messages: readonly object[]): string {
  return createHash('sha256').update(canonicalJson(messages)).digest('hex');
}

/**
 * The key of a request without an Idempotency-Key whose messages all carry a clientMessageId: the same ids in
 * the same order give the same key (sent back in the answer; sending it as Idempotency-Key means the same).
 */
export function keyFromClientMessageIds(ids: readonly (string | undefined)[]): string | undefined {
  if (ids.length === 0 || ids.some((id) => id === undefined)) return undefined;
  return DERIVED_KEY_PREFIX + createHash('sha256').update(JSON.stringify(ids)).digest('hex').slice(0, 32);
}

export interface KeyedRequest {
  readonly tenant: string;
  readonly sessionId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly messages: number;
  /** How the answer names the key: `Idempotency-Key "k"` or `the clientMessageIds a, b (key "cmid-…")`. */
  readonly describe: string;
}

/** The body a key is bound to, as the refusal of another body names it. */
export interface BoundBody {
  readonly fingerprint: string;
  readonly messages: number;
  readonly firstUsedAt: string;
}

/** The refusal of a request whose key is bound to another body (409). */
export function conflictWith(request: KeyedRequest, bound: BoundBody): IdempotencyConflictError {
  return new IdempotencyConflictError(
    `${request.describe} was already used on session ${request.sessionId} with another body ` +
      `(${bound.messages} message${bound.messages === 1 ? '' : 's'}, first at ${bound.firstUsedAt}): ` +
      'a retry must send the same body; a new request needs a new key',
    request.key,
  );
}

/**
 * The port binding each key to the first body it came with, shared by every instance and restart. Adapters:
 * MongoIdempotencyKeys (the service), InMemoryIdempotencyKeys (tests).
 */
export interface IdempotencyKeys {
  /**
   * Binds the key to the request's body, or checks it against the body it is bound to: true when this call
   * bound it, false for a replay of the same body; IdempotencyConflictError (409) for another body.
   */
  claim(request: KeyedRequest): Promise<boolean>;
  /** Unbinds a key this request bound when the request was refused before anything was sent (400, 413). */
  release(request: KeyedRequest): Promise<void>;
}

export const IDEMPOTENCY_KEYS = Symbol('IdempotencyKeys');

export const idOfKey = (r: Pick<KeyedRequest, 'tenant' | 'sessionId' | 'key'>) => `${r.tenant}/${r.sessionId}/${r.key}`;
