import {
  foreignTenantReason,
  isEventOf,
  mergeSessionConfig,
  refusedConfigReason,
  sessionConfigViolations,
  unhandledEvent,
  type AnyEvent,
} from '@ctxledger/contracts';
import { unstorableReason } from '../storable';
import type { SessionDocument } from './session.document';

/** A session-stream event with where it was read from and what the projector knows beside the document. */
export interface SessionStreamRecord {
  readonly event: AnyEvent;
  readonly partition: number;
  readonly offset: number;
  /** For `message.appended`: its clientMessageId was given a position by an earlier event of the session. */
  readonly duplicateClientMessageId?: boolean;
}

export type SessionEvolution =
  /** Already applied (offset at or below the document's): nothing changes. */
  | { readonly kind: 'already-applied' }
  /** Can never be applied; the document stays as it was. */
  | { readonly kind: 'poison'; readonly reason: string }
  /**
   * A configuration the engine refuses: dead-lettered with `reason`, and recorded in the document (which keeps
   * its configuration) so the session's stats say which one is in force and what was refused.
   */
  | { readonly kind: 'refused'; readonly doc: SessionDocument; readonly reason: string }
  /** The new document; `position` is set when the event appended a message. */
  | { readonly kind: 'applied'; readonly doc: SessionDocument; readonly position?: number };

/**
 * The pure projection of the session stream onto a session document (Emmett's evolve). Positions: the
 * `message.appended` events of a session are numbered 0, 1, 2, … in stream order; one whose clientMessageId
 * was already seen is a duplicate and gets none. Summary results and commands only move the offset.
 */
export function evolveSession(doc: SessionDocument | null, record: SessionStreamRecord): SessionEvolution {
  const { event, offset, partition } = record;
  if (doc && offset <= doc.lastOffset) return { kind: 'already-applied' };
  const foreign = doc ? foreignTenantReason(doc.tenant, event) : undefined;
  if (foreign) return { kind: 'poison', reason: foreign };
  const base: SessionDocument = doc ?? {
    _id: event.sessionId,
    tenant: event.tenant,
    config: {},
    messageCount: 0,
    partition,
    lastOffset: -1,
    createdAt: event.time,
    updatedAt: event.time,
  };
  const moved: SessionDocument = { ...base, partition, lastOffset: offset, updatedAt: event.time };

  if (!isEventOf(event, 'sessionEvents')) {
    return { kind: 'poison', reason: `${event.type} does not belong on the session stream` };
  }
  switch (event.type) {
    case 'session.configured': {
      const config = mergeSessionConfig(base.config, event.data);
      const unstorable = unstorableReason(config, 'data');
      if (unstorable) return { kind: 'poison', reason: unstorable };
      const violations = sessionConfigViolations(config);
      if (violations.length > 0) {
        const reason = refusedConfigReason(violations);
        const refusedConfig = {
          eventId: event.eventId,
          offset,
          time: event.time,
          reason,
          ...(unstorableReason(event.data, 'data') === undefined && { config: event.data }),
        };
        return { kind: 'refused', doc: { ...moved, refusedConfig }, reason };
      }
      return { kind: 'applied', doc: { ...moved, config } };
    }
    case 'message.appended':
      if (record.duplicateClientMessageId) return { kind: 'applied', doc: moved };
      return { kind: 'applied', doc: { ...moved, messageCount: base.messageCount + 1 }, position: base.messageCount };
    case 'compaction.requested':
    case 'block-revert.requested':
    case 'summary.completed':
    case 'summary.failed':
      return { kind: 'applied', doc: moved };
    default:
      return unhandledEvent(event); // compiles only while every session-stream type has its case above
  }
}
