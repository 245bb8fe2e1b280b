import type { SessionConfiguredData } from '@ctxledger/contracts';

/**
 * One session: its tenant, accumulated configuration and how far its session stream was projected.
 * `_id` is the session id; every field comes from the events (no clock), so a rebuild yields the same document.
 */
export interface SessionDocument {
  readonly _id: string;
  /** The tenant of the session's first event; events of another tenant are refused. */
  readonly tenant: string;
  /** The `session.configured` events merged field by field (wire shape). */
  readonly config: SessionConfiguredData;
  /**
   * The last `session.configured` the engine refused (also dead-lettered): what it asked for and why. The
   * session kept `config`; the offset tells whether a later configuration was applied since.
   */
  readonly refusedConfig?: RefusedConfig;
  /** Messages with a position (duplicates of a clientMessageId excluded). */
  readonly messageCount: number;
  /** Session-stream partition and last applied offset: the guard of every write and the `after` wait. */
  readonly partition: number;
  readonly lastOffset: number;
  /** Times of the first and the last applied event (event time, not projection time). */
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface RefusedConfig {
  readonly eventId: string;
  /** Session-stream offset of the refused event. */
  readonly offset: number;
  readonly time: string;
  readonly reason: string;
  /** The refused event's data (left out when it cannot be stored as it is). */
  readonly config?: SessionConfiguredData;
}
