import { Equals, IsIn, IsISO8601, IsObject, IsOptional, IsString, Length, Matches } from 'class-validator';
import { BlockCreatedData, BlockRevertedData } from './events/block-events';
import { EventDeadLetteredData } from './events/dead-letter';
import {
  BlockRevertRequestedData,
  CompactionRequestedData,
  MessageAppendedData,
  SessionConfiguredData,
} from './events/session-events';
import { SummaryCompletedData, SummaryFailedData, SummaryRequestedData } from './events/summary-events';
import { ID_PATTERN, LIMITS } from './limits';
import type { TopicNames } from './topics';

export const SCHEMA_VERSION = 1 as const;

/** Every event type, the stream (topic) it travels on, and the class its `data` must satisfy. */
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
} as const;

export type EventType = keyof typeof EVENT_TYPES;
export type StreamName = keyof TopicNames;
export type EventDataOf<T extends EventType> = InstanceType<(typeof EVENT_TYPES)[T]['data']>;

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

export const DEFAULT_TENANT = 'default';

/** The envelope as it may arrive on the wire: only type, sessionId and data are required. */
export class EnvelopeDto {
  @IsIn(Object.keys(EVENT_TYPES), { message: `must be one of: ${Object.keys(EVENT_TYPES).join(', ')}` })
  type!: string;

  @IsOptional()
  @Equals(SCHEMA_VERSION, { message: `only version ${SCHEMA_VERSION} is supported` })
  schemaVersion?: number;

  @IsOptional()
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  eventId?: string;

  @IsString()
  @Length(1, LIMITS.maxIdLength)
  @Matches(ID_PATTERN, { message: 'may contain only letters, digits and _:@-' })
  sessionId!: string;

  @IsOptional()
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  @Matches(ID_PATTERN, { message: 'may contain only letters, digits and _:@-' })
  tenant?: string;

  @IsOptional()
  @IsISO8601({ strict: true })
  time?: string;

  @IsOptional()
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  causationId?: string;

  @IsOptional()
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  correlationId?: string;

  @IsObject()
  data!: Record<string, unknown>;
}
