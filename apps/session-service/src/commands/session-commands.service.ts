import { Inject, Injectable } from '@nestjs/common';
import {
  ContractViolationError,
  createEvent,
  ID_PATTERN,
  LIMITS,
  mergeSessionConfig,
  sessionConfigViolations,
  type AnyEvent,
  type MessageAppendedData,
  type SessionConfiguredData,
} from '@ctxledger/contracts';
import { classifyProviderError, type ProviderErrorClassification } from '@ctxledger/context-engine';
import { ProjectionMetrics } from '../projector/projection.metrics';
import { READ_MODEL_READS, type ReadModelReads } from '../read-models/read-model.reads';
import { ProjectedSessions } from '../read-models/sessions/projected-sessions';
import { unstorableReason } from '../read-models/storable';
import {
  IDEMPOTENCY_KEYS,
  keyFromClientMessageIds,
  requestFingerprint,
  type IdempotencyKeys,
  type KeyedRequest,
} from './idempotency-keys';
import {
  InvalidRequestError,
  NotFoundError,
  OtherTenantSessionError,
  OutcomeUnknownError,
  SessionNotFoundError,
  TooLargeError,
  UnprocessableError,
} from '../session-errors';
import {
  AppendNotAcknowledgedError,
  AppendTooLargeError,
  SESSION_EVENT_PUBLISHER,
  type Appended,
  type SessionEventPublisher,
} from './session-event-publisher';

export interface Accepted extends Appended {
  readonly sessionId: string;
  readonly waitToken: string;
}

/** What makes a retry of a write safe, for the answer when its outcome is unknown. */
interface RetryRule {
  /** The key the request was taken under (null: it had none, a retry may append its messages twice). */
  readonly idempotencyKey: string | null;
  readonly how: string;
}

/** Compaction requests carry no key: one sent twice is handled twice. */
const AT_MOST_TWICE: RetryRule = {
  idempotencyKey: null,
  how: 'a retry may request the compaction a second time',
};

/** Longest Idempotency-Key: `<key>:<index>` must stay a valid clientMessageId. */
const MAX_IDEMPOTENCY_KEY = LIMITS.maxIdLength - 1 - String(LIMITS.maxBatchMessages).length;

/**
 * The write use cases: each turns a request into events of the session stream (nothing is written to the
 * read model here; the projector does that). HTTP controllers delegate here.
 */
@Injectable()
export class SessionCommandsService {
  constructor(
    @Inject(SESSION_EVENT_PUBLISHER) private readonly publisher: SessionEventPublisher,
    @Inject(READ_MODEL_READS) private readonly reads: ReadModelReads,
    private readonly sessions: ProjectedSessions,
    private readonly metrics: ProjectionMetrics,
    @Inject(IDEMPOTENCY_KEYS) private readonly keys: IdempotencyKeys,
  ) {}

  /**
   * The request's key is its Idempotency-Key, or, without one, derived from its clientMessageIds when every
   * message has one. A key is bound to the first body it came with (IdempotencyKeys): the same body again is a
   * replay (its messages are deduplicated on their clientMessageIds), another body is 409.
   */
  async appendMessages(
    tenant: string,
    sessionId: string,
    messages: readonly MessageAppendedData[],
    idempotencyKey?: string,
  ): Promise<Accepted & { accepted: number; clientMessageIds: (string | null)[]; idempotencyKey: string | null }> {
    if (
      idempotencyKey !== undefined &&
      (idempotencyKey.length > MAX_IDEMPOTENCY_KEY || !ID_PATTERN.test(idempotencyKey))
    ) {
      throw new InvalidRequestError([`Idempotency-Key: must be 1-${MAX_IDEMPOTENCY_KEY} of letters, digits and _:@-`]);
    }
    await this.refuseOtherTenant(tenant, sessionId);
    const derived = keyFromClientMessageIds(messages.map((m) => m.clientMessageId));
    const key = idempotencyKey ?? derived;
    const keyed: KeyedRequest | undefined =
      key === undefined
        ? undefined
        : {
            tenant,
            sessionId,
            key,
            fingerprint: requestFingerprint(messages),
            messages: messages.length,
            describe:
              idempotencyKey !== undefined
                ? `Idempotency-Key "${key}"`
                : `the clientMessageIds ${listed(messages.map((m) => m.clientMessageId!))} (key "${key}")`,
          };
    const data = messages.map((m, i) => {
      const clientMessageId =
        m.clientMessageId ?? (idempotencyKey !== undefined ? `${idempotencyKey}:${i}` : undefined);
      return { ...m, ...(clientMessageId !== undefined && { clientMessageId }) } as MessageAppendedData;
    });
    const correlation = idempotencyKey !== undefined ? { correlationId: idempotencyKey } : {};
    const events = data.map((d) => createEvent('message.appended', sessionId, d, { tenant, ...correlation }));
    const bound = keyed ? await this.keys.claim(keyed) : false;
    const retry: RetryRule = keyed
      ? {
          idempotencyKey: keyed.key,
          how:
            idempotencyKey !== undefined
              ? `retrying the same body with Idempotency-Key "${keyed.key}" is safe: it appends nothing twice`
              : 'retrying the same body (the same clientMessageIds) is safe: it appends nothing twice',
        }
      : {
          idempotencyKey: null,
          how:
            'the request had neither an Idempotency-Key nor a clientMessageId on every message, so a retry may ' +
            'append its messages twice; send one of them to make retries safe',
        };
    let accepted: Accepted;
    try {
      accepted = await this.send(sessionId, events, retry);
    } catch (error) {
      // Refused before anything was sent (400, 413): the key is free for a corrected body.
      if (bound && (error instanceof InvalidRequestError || error instanceof TooLargeError)) {
        await this.keys.release(keyed!);
      }
      throw error;
    }
    this.metrics.messagesAppended.inc(events.length);
    return {
      ...accepted,
      accepted: events.length,
      clientMessageIds: data.map((d) => d.clientMessageId ?? null),
      idempotencyKey: keyed?.key ?? null,
    };
  }

  async configure(tenant: string, sessionId: string, config: SessionConfiguredData): Promise<Accepted> {
    const unstorable = unstorableReason(config.policy ?? {}, 'policy');
    if (unstorable) throw new InvalidRequestError([unstorable]);
    const { session: current, ownedByAnotherTenant } = await this.sessions.lookup(tenant, sessionId);
    // The merged configuration must make a budget the engine accepts (the same check as on the Kafka path).
    const violations = sessionConfigViolations(mergeSessionConfig(current?.config, config));
    if (violations.length > 0) throw new InvalidRequestError(violations);
    if (ownedByAnotherTenant) throw new OtherTenantSessionError(sessionId);
    return this.send(sessionId, [createEvent('session.configured', sessionId, config, { tenant })], {
      idempotencyKey: null,
      how: 'retrying the same configuration is safe: applied twice it has the effect of once',
    });
  }

  async requestCompaction(tenant: string, sessionId: string): Promise<Accepted> {
    await this.existingSession(tenant, sessionId);
    return this.send(
      sessionId,
      [createEvent('compaction.requested', sessionId, { trigger: 'manual' }, { tenant })],
      AT_MOST_TWICE,
    );
  }

  /** The provider's error text: an overflow asks for an emergency compaction; anything else is 422. */
  async reportOverflow(
    tenant: string,
    sessionId: string,
    errorText: string,
  ): Promise<Accepted & Omit<ProviderErrorClassification, 'retryable' | 'status'>> {
    await this.existingSession(tenant, sessionId);
    const classification = classifyProviderError(errorText);
    if (classification.kind !== 'overflow') {
      throw new UnprocessableError(
        `not a context overflow but ${describe(classification)}: compacting would not help`,
        { classification },
      );
    }
    const accepted = await this.send(
      sessionId,
      [createEvent('compaction.requested', sessionId, { trigger: 'overflow', errorText }, { tenant })],
      AT_MOST_TWICE,
    );
    const { kind, provider, actualTokens, limitTokens } = classification;
    return {
      ...accepted,
      kind,
      ...(provider && { provider }),
      ...(actualTokens !== undefined && { actualTokens }),
      ...(limitTokens !== undefined && { limitTokens }),
    };
  }

  async requestRevert(
    tenant: string,
    sessionId: string,
    blockId: string,
  ): Promise<Accepted & { alreadyReverted: boolean }> {
    await this.existingSession(tenant, sessionId);
    const block = await this.reads.block(tenant, sessionId, blockId);
    if (!block) throw new NotFoundError(`block ${blockId} not found in session ${sessionId}`);
    const accepted = await this.send(
      sessionId,
      [createEvent('block-revert.requested', sessionId, { blockId }, { tenant })],
      { idempotencyKey: null, how: 'retrying is safe: a block reverted twice is reverted once' },
    );
    return { ...accepted, alreadyReverted: !block.active };
  }

  /**
   * Sends the events; when Kafka did not acknowledge them the outcome is unknown (they may be written or not):
   * OutcomeUnknownError says when to retry and what makes a retry safe.
   */
  private async send(sessionId: string, events: AnyEvent[], retry: RetryRule): Promise<Accepted> {
    try {
      const appended = await this.publisher.append(sessionId, events);
      return { sessionId, ...appended, waitToken: appended.offsets[appended.offsets.length - 1]! };
    } catch (error) {
      if (error instanceof ContractViolationError) throw new InvalidRequestError(error.violations);
      if (error instanceof AppendTooLargeError) throw new TooLargeError(error.message);
      if (error instanceof AppendNotAcknowledgedError) {
        throw new OutcomeUnknownError(
          `${error.message}: the outcome is unknown; ${retry.how}`,
          retry.idempotencyKey,
          error.retryAfterSeconds,
        );
      }
      throw error;
    }
  }

  private async existingSession(tenant: string, sessionId: string): Promise<void> {
    if (!(await this.sessions.find(tenant, sessionId))) throw new SessionNotFoundError(sessionId);
  }

  private async refuseOtherTenant(tenant: string, sessionId: string): Promise<void> {
    if (await this.sessions.ownedByAnotherTenant(tenant, sessionId)) throw new OtherTenantSessionError(sessionId);
  }
}

/** The first few ids of a list, for a message. */
function listed(ids: readonly string[], shown = 3): string {
  return ids.length <= shown ? ids.join(', ') : `${ids.slice(0, shown).join(', ')}, … (${ids.length} in all)`;
}

function describe(c: ProviderErrorClassification): string {
  const what = {
    'rate-limit': 'a rate limit',
    auth: 'an authentication error',
    network: 'a network error',
    other: 'another error',
    overflow: 'an overflow',
  }[c.kind];
  return `${what}${c.provider ? ` from ${c.provider}` : ''}${c.status ? ` (HTTP ${c.status})` : ''}${c.retryable ? ', retryable' : ''}`;
}
