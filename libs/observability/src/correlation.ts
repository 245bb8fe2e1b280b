import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * The correlation of one unit of work: an HTTP request, or the handling of one Kafka record. It is kept in
 * AsyncLocalStorage for the work's duration, so every log line written meanwhile and every event produced
 * meanwhile carries the same id — across the three services, since the id travels as a Kafka record header.
 */
export interface Correlation {
  readonly correlationId: string;
  /** The session the work is about, when there is one (a route parameter, a record's session). */
  sessionId?: string;
}

/** The Kafka record header that carries the correlation id. */
export const CORRELATION_HEADER = 'x-correlation-id';
/** HTTP request headers a caller may pass its id in (first valid one wins); both are echoed in the response. */
export const HTTP_CORRELATION_HEADERS = ['x-request-id', 'x-correlation-id'] as const;

export const MAX_CORRELATION_ID_LENGTH = 128;
/** Letters, digits and `_.:@/+=-`: safe in a header, a log line and a Kafka header, never a control character. */
const SAFE_ID = /^[A-Za-z0-9_.:@/+=-]+$/;

const storage = new AsyncLocalStorage<Correlation>();

/** The id as given when it is usable (bounded length, safe characters), else undefined. */
export function acceptCorrelationId(raw: unknown): string | undefined {
  if (Array.isArray(raw)) raw = raw[0];
  if (Buffer.isBuffer(raw)) raw = raw.toString('utf8');
  if (typeof raw !== 'string') return undefined;
  const id = raw.trim();
  return id.length > 0 && id.length <= MAX_CORRELATION_ID_LENGTH && SAFE_ID.test(id) ? id : undefined;
}

export function newCorrelationId(): string {
  return randomUUID();
}

/** Runs `fn` with this correlation; it (and everything it awaits or schedules) sees it as the current one. */
export function runWithCorrelation<T>(correlation: Correlation, fn: () => T): T {
  return storage.run(correlation, fn);
}

/** The correlation of the work in progress, if any. */
export function currentCorrelation(): Correlation | undefined {
  return storage.getStore();
}

export function currentCorrelationId(): string | undefined {
  return storage.getStore()?.correlationId;
}

/** The Kafka headers of a record produced now: the current correlation id, or none outside any work. */
export function correlationHeaders(): Record<string, string> {
  const id = currentCorrelationId();
  return id === undefined ? {} : { [CORRELATION_HEADER]: id };
}

/** Where a consumed record came from, and what its event says (when it decoded). */
export interface RecordOrigin {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  /** kafkajs' headers: values are Buffers (or strings, or arrays of them). */
  readonly headers?: Record<string, unknown>;
  /** The event's own `correlationId` and `eventId`, when the record decoded. */
  readonly event?: { readonly correlationId?: string; readonly eventId?: string };
}

/**
 * The correlation id of a consumed record: its header when a producer of ours (or a well-behaved client) set
 * one; else the event's own correlationId or eventId (a raw producer such as kcat sets no header); else the
 * record's coordinates `topic/partition/offset` — always something, so the logs of its handling correlate.
 */
export function correlationIdOfRecord(origin: RecordOrigin): string {
  return (
    acceptCorrelationId(headerValue(origin.headers, CORRELATION_HEADER)) ??
    acceptCorrelationId(origin.event?.correlationId) ??
    acceptCorrelationId(origin.event?.eventId) ??
    `${origin.topic}/${origin.partition}/${origin.offset}`.slice(-MAX_CORRELATION_ID_LENGTH)
  );
}

function headerValue(headers: Record<string, unknown> | undefined, name: string): unknown {
  if (!headers) return undefined;
  if (name in headers) return headers[name];
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}
