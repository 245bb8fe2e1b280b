import { randomUUID } from 'node:crypto';
import {
  DEFAULT_TENANT,
  Envelope,
  EVENT_TYPES,
  SCHEMA_VERSION,
  type AnyEvent,
  type EventDataOf,
  type EventEnvelope,
  type EventType,
  type StreamName,
  type WireEnvelope,
} from './envelope';
import { jsonNestsDeeperThan } from './json-depth';
import { firstInvalidUtf8Byte } from './utf8';
import { LIMITS } from './limits';
import { violationsOf } from './schema/validator';
import { ContractViolationError } from './validation';

/** Where a record came from; used for defaults (event id, time) and for the checks on its key. */
export interface RecordCoordinates {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  /** Kafka timestamp, ms since the epoch, as kafkajs gives it (a string). */
  readonly timestamp?: string;
  readonly key?: string | null;
}

export type DecodeResult =
  { readonly ok: true; readonly event: AnyEvent } | { readonly ok: false; readonly reason: string };

/**
 * Parses and validates one record of `stream`. Never throws: a record that breaks the contract comes back
 * with the reason, for the dead-letter topic. The record key must be the session id (it keeps one session's
 * events ordered on one partition).
 */
export function decodeEvent(
  value: Buffer | string | null,
  record: RecordCoordinates,
  stream: StreamName,
): DecodeResult {
  if (value === null) return fail('the record has no value (tombstone)');
  const size = typeof value === 'string' ? Buffer.byteLength(value) : value.length;
  if (size > LIMITS.maxEventBytes)
    return fail(`the record is ${size} bytes, over the limit of ${LIMITS.maxEventBytes}`);

  if (jsonNestsDeeperThan(value, LIMITS.maxJsonDepth))
    return fail(`the value nests arrays/objects deeper than ${LIMITS.maxJsonDepth} levels`);
  if (typeof value !== 'string') {
    // Refused, not decoded with U+FFFD in place of the bad bytes: nothing accepted is silently altered.
    const bad = firstInvalidUtf8Byte(value);
    if (bad >= 0) return fail(`the value is not valid UTF-8 (byte ${bad})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString());
  } catch (error) {
    return fail(`the value is not JSON: ${(error as Error).message}`);
  }
  try {
    return decodeParsed(parsed, record, stream);
  } catch (error) {
    // Never throw: a record the checks themselves choke on is refused like any other, and its partition moves on.
    return fail(`the record could not be checked: ${(error as Error).message}`);
  }
}

function decodeParsed(parsed: unknown, record: RecordCoordinates, stream: StreamName): DecodeResult {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail('the value must be a JSON object (the event envelope)');
  }

  // The envelope first (its type says which data schema applies), then where the record is, then its data.
  const envelopeViolations = violationsOf(Envelope, parsed, '', 'decode');
  if (envelopeViolations.length > 0) return fail(envelopeViolations.join('; '));
  const env = parsed as WireEnvelope;
  const spec = EVENT_TYPES[env.type as EventType];
  if (spec.stream !== stream) {
    return fail(`type ${env.type} does not belong on ${record.topic} (it travels on the ${spec.stream} stream)`);
  }
  if (record.key !== undefined && record.key !== null && record.key !== env.sessionId) {
    return fail(`the record key "${record.key}" is not the sessionId "${env.sessionId}"`);
  }
  if (record.key === undefined || record.key === null) {
    return fail('the record has no key: the sessionId must be the record key so a session stays on one partition');
  }

  // Checked in place: the parsed value is ours, and loses the properties its schema does not list.
  const dataViolations = violationsOf(spec.data, env.data, 'data', 'decode');
  if (dataViolations.length > 0) return fail(dataViolations.join('; '));

  const event = {
    type: env.type,
    schemaVersion: SCHEMA_VERSION,
    eventId: env.eventId ?? `${record.topic}/${record.partition}/${record.offset}`,
    sessionId: env.sessionId,
    tenant: env.tenant ?? DEFAULT_TENANT,
    time: env.time ?? new Date(Number(record.timestamp ?? 0)).toISOString(),
    ...(env.causationId !== undefined && { causationId: env.causationId }),
    ...(env.correlationId !== undefined && { correlationId: env.correlationId }),
    data: env.data,
  } as AnyEvent;
  return { ok: true, event };
}

/** Validates an event against its contract and encodes it for Kafka; throws ContractViolationError. */
export function encodeEvent(event: AnyEvent): string {
  // Checked, not changed: the event is the producer's, and is sent as it is.
  const violations = violationsOf(Envelope, event, '', 'check');
  const spec = EVENT_TYPES[event.type] as (typeof EVENT_TYPES)[EventType] | undefined;
  if (spec) violations.push(...violationsOf(spec.data, event.data, 'data', 'check'));
  if (event.schemaVersion !== SCHEMA_VERSION) violations.push(`schemaVersion: must be ${SCHEMA_VERSION}`);
  if (!event.eventId) violations.push('eventId: must be set by producers we write');
  if (violations.length > 0) throw new ContractViolationError(violations);
  const json = JSON.stringify(event);
  const size = Buffer.byteLength(json);
  if (size > LIMITS.maxEventBytes) {
    throw new ContractViolationError([`the event is ${size} bytes, over the limit of ${LIMITS.maxEventBytes}`]);
  }
  return json;
}

/** Builds an event with a fresh event id and the current time (producers; not for replays). */
export function createEvent<T extends EventType>(
  type: T,
  sessionId: string,
  data: EventDataOf<T>,
  meta: { tenant?: string; eventId?: string; time?: string; causationId?: string; correlationId?: string } = {},
): EventEnvelope<T> {
  return {
    type,
    schemaVersion: SCHEMA_VERSION,
    eventId: meta.eventId ?? randomUUID(),
    sessionId,
    tenant: meta.tenant ?? DEFAULT_TENANT,
    time: meta.time ?? new Date().toISOString(),
    ...(meta.causationId !== undefined && { causationId: meta.causationId }),
    ...(meta.correlationId !== undefined && { correlationId: meta.correlationId }),
    data,
  };
}

function fail(reason: string): DecodeResult {
  return { ok: false, reason };
}
