import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { BlockCreatedData, BlockRevertedData } from './events/block-events';
import { EventDeadLetteredData } from './events/dead-letter';
import {
  BlockRevertRequestedData,
  CompactionRequestedData,
  MessageAppendedData,
  SessionConfiguredData,
} from './events/session-events';
import { SummaryCompletedData, SummaryFailedData, SummaryRequestedData } from './events/summary-events';
import { LIMITS } from './limits';
import { AnyObject, IdWith } from './schema/builders';
import type { TopicNames } from './topics';

export const SCHEMA_VERSION = 1 as const;
export type StreamName = keyof TopicNames;

/**
 * The registry: every event type, the stream (topic) it travels on, and the schema of its `data`. Everything else
 * comes from here — the TypeScript types below, the validators of the Kafka codec, the consumers' `@EventPattern`
 * lists (eventTypesOf) and the AsyncAPI document (asyncapi/document.ts). A new event type is one entry here.
 */
export const EVENT_TYPES = {
  'session.configured': { stream: 'sessionEvents', data: SessionConfiguredData },
  'message.appended': { stream: 'sessionEvents', data: MessageAppendedData },
  'compaction.requested': { stream: 'sessionEvents', data: CompactionRequestedData },
  'block-revert.requested': { stream: 'sessionEvents', data: BlockRevertRequestedData },
  'block.created': { stream: 'blocks', data: BlockCreatedData },
  'block.reverted': { stream: 'blocks', data: BlockRevertedData },
  'summary.requested': { stream: 'summaryRequests', data: SummaryRequestedData },
  'summary.completed': { stream: 'sessionEvents', data: SummaryCompletedData },
  'summary.failed': { stream: 'sessionEvents', data: SummaryFailedData },
  'event.dead-lettered': { stream: 'deadLetter', data: EventDeadLetteredData },
} as const satisfies Record<string, { readonly stream: StreamName; readonly data: TSchema }>;

export type EventType = keyof typeof EVENT_TYPES;
export type EventDataOf<T extends EventType> = Static<(typeof EVENT_TYPES)[T]['data']>;
/** The event types that travel on a stream. */
export type EventTypeOf<S extends StreamName> = {
  [T in EventType]: (typeof EVENT_TYPES)[T]['stream'] extends S ? T : never;
}[EventType];

export const ALL_EVENT_TYPES = Object.keys(EVENT_TYPES) as EventType[];

/** The event types of a stream, in registry order: what a consumer of the whole stream subscribes to. */
export function eventTypesOf<S extends StreamName>(stream: S): EventTypeOf<S>[] {
  return ALL_EVENT_TYPES.filter((t) => EVENT_TYPES[t].stream === stream) as EventTypeOf<S>[];
}

/** The one envelope of every event on every topic. The Kafka record key is the session id. */
export interface EventEnvelope<T extends EventType = EventType> {
  readonly type: T;
  readonly schemaVersion: typeof SCHEMA_VERSION;
  /** Unique per event; when a raw producer omits it, the record's `topic/partition/offset` is used. */
  readonly eventId: string;
  readonly sessionId: string;
  readonly tenant: string;
  /** ISO 8601; when omitted, the record's timestamp. */
  readonly time: string;
  readonly causationId?: string;
  readonly correlationId?: string;
  readonly data: EventDataOf<T>;
}

/** A discriminated union over `type`: narrowing on it types `data`. */
export type AnyEvent = { [T in EventType]: EventEnvelope<T> }[EventType];
/** The events of one stream: what a consumer of its topic handles (a `switch` over them ends in `unhandledEvent`). */
export type EventOf<S extends StreamName> = Extract<AnyEvent, { type: EventTypeOf<S> }>;

/** Narrows an event to those of a stream (the transport already refused a record of another stream's type). */
export function isEventOf<S extends StreamName>(event: AnyEvent, stream: S): event is EventOf<S> {
  return EVENT_TYPES[event.type].stream === stream;
}

/**
 * The end of an exhaustive `switch` over event types: it compiles only when every type has its case, so adding an
 * event type makes the compiler point at each handler that must decide what to do with it. Pass the event (narrowed
 * to `never` when its union is exhausted), or its type when the stream has a single one.
 */
export function unhandledEvent(event: never): never {
  const type = typeof event === 'object' && event !== null ? (event as { type: unknown }).type : event;
  throw new Error(`unhandled event type ${String(type)}`);
}

export const DEFAULT_TENANT = 'default';

/** The envelope as it may arrive on the wire: only type, sessionId and data are required. */
export const Envelope = Type.Object(
  {
    type: Type.String({
      enum: ALL_EVENT_TYPES,
      description: 'The event type (the message name).',
      errorMessage: { enum: `must be one of: ${ALL_EVENT_TYPES.join(', ')}` },
    }),
    schemaVersion: Type.Optional(
      Type.Integer({
        const: SCHEMA_VERSION,
        default: SCHEMA_VERSION,
        errorMessage: {
          type: `only version ${SCHEMA_VERSION} is supported`,
          const: `only version ${SCHEMA_VERSION} is supported`,
        },
      }),
    ),
    eventId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: LIMITS.maxIdLength,
        description: 'Unique per event; default <topic>/<partition>/<offset>.',
      }),
    ),
    sessionId: IdWith({ description: 'Also the Kafka record key.' }),
    tenant: Type.Optional(IdWith({ default: DEFAULT_TENANT })),
    time: Type.Optional(Type.String({ format: 'date-time', description: 'Default: the record timestamp.' })),
    causationId: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength })),
    correlationId: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength })),
    data: AnyObject(),
  },
  { title: 'Envelope' },
);
export type WireEnvelope = Static<typeof Envelope>;
