import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { READ_MODEL_READS, type ReadModelReads } from '../read-models/read-model.reads';
import type { SessionDocument } from '../read-models/sessions/session.document';
import { BlockCache } from '../read-models/blocks/block-cache';
import { MessageCache } from '../read-models/messages/message-cache';
import { ProjectedSessions } from '../read-models/sessions/projected-sessions';
import { statsView, type LoadedSession } from '../queries/session-view';
import { NotFoundError, SessionNotFoundError } from '../session-errors';
import type { SessionListDto, SessionSummaryDto } from './dto/inspector-response.dto';
import { blockDetail, effectivePage, messagesPage, tokenSeries, type WireFormat } from './inspector-views';

/** Listed sessions whose stats are computed at once (each loads its messages through the cache). */
const STATS_IN_FLIGHT = 4;
/**
 * How long a listing waits for the stats it computes: a session not read since the service started loads
 * all its messages first (~17 s for 10,000 on FerretDB); listed before that, it is marked `statsPending`
 * and its stats go on being computed, for the next listing.
 */
const LIST_STATS_WAIT_MS = 1_500;
/** Listed sessions whose summary is kept (a few hundred bytes each). */
const MAX_CACHED_SUMMARIES = 10_000;

/** A listed session's summary, valid while its projected offset and its block head are the same. */
interface CachedSummary {
  readonly lastOffset: number;
  readonly blocksHead: number;
  readonly summary: SessionSummaryDto;
}

/**
 * The read use cases of the session inspector (/ui): a tenant's sessions, pages of a session's originals and
 * of its effective history, one block in detail, tokens over time. From the read model, through the same
 * caches as the history and stats endpoints; another tenant's session is not found (404).
 */
@Injectable()
export class InspectorService {
  /**
   * Summaries by tenant and session: a listing recomputes a session's stats (which loads all its messages) only
   * when the session got a message or a block event since (its last offset or block head moved).
   */
  private readonly summaries = new LRUCache<string, CachedSummary>({ max: MAX_CACHED_SUMMARIES });
  /** Summaries being computed, by tenant, session and offset (a second listing meanwhile waits for the same). */
  private readonly computing = new Map<string, Promise<SessionSummaryDto>>();
  /** Computations running, and those waiting for one of the STATS_IN_FLIGHT slots. */
  private running = 0;
  private readonly queued: (() => void)[] = [];
  /** How long a listing waits for stats being computed (LIST_STATS_WAIT_MS; a test may shorten it). */
  listStatsWaitMs = LIST_STATS_WAIT_MS;

  constructor(
    @Inject(READ_MODEL_READS) private readonly reads: ReadModelReads,
    private readonly sessions: ProjectedSessions,
    private readonly messageCache: MessageCache,
    private readonly blockCache: BlockCache,
  ) {}

  async list(tenant: string, q: string | undefined, offset: number, limit: number): Promise<SessionListDto> {
    const { docs, total } = await this.reads.sessionsOf(tenant, q, offset, limit);
    const deadline = Date.now() + this.listStatsWaitMs;
    const sessions = await Promise.all(docs.map((d) => this.summaryBy(d, deadline)));
    return { sessions, total, offset, limit };
  }

  /** The session's summary if it is ready by `deadline`; else its document's fields, `statsPending`. */
  private async summaryBy(session: SessionDocument, deadline: number): Promise<SessionSummaryDto> {
    const key = `${session.tenant}/${session._id}@${session.lastOffset}`;
    let computing = this.computing.get(key);
    if (!computing) {
      computing = this.inSlot(() => this.summary(session)).finally(() => this.computing.delete(key));
      this.computing.set(key, computing);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((done) => {
      timer = setTimeout(() => done(undefined), Math.max(0, deadline - Date.now()));
    });
    try {
      return (await Promise.race([computing, late])) ?? pendingSummary(session);
    } finally {
      clearTimeout(timer);
    }
  }

  private async inSlot<T>(run: () => Promise<T>): Promise<T> {
    if (this.running >= STATS_IN_FLIGHT) await new Promise<void>((go) => this.queued.push(go));
    this.running++;
    try {
      return await run();
    } finally {
      this.running--;
      this.queued.shift()?.();
    }
  }

  private async summary(session: SessionDocument): Promise<SessionSummaryDto> {
    const key = `${session.tenant}/${session._id}`;
    const blocks = await this.blockCache.blocks(session.tenant, session._id);
    const hit = this.summaries.get(key);
    if (hit && hit.lastOffset === session.lastOffset && hit.blocksHead === blocks.head) return hit.summary;
    const messages = await this.messageCache.messages(session._id, session.messageCount);
    const summary = summaryOf(session, { session, messages, blocks: blocks.docs });
    // A head that is not kept (NaN: read while a batch of the session was being handed over) is not keyed on.
    if (Number.isNaN(blocks.head)) this.summaries.delete(key);
    else this.summaries.set(key, { lastOffset: session.lastOffset, blocksHead: blocks.head, summary });
    return summary;
  }

  async messages(tenant: string, sessionId: string, offset: number, limit: number) {
    return messagesPage(await this.load(tenant, sessionId), offset, limit);
  }

  async effective(tenant: string, sessionId: string, format: WireFormat, offset: number, limit: number) {
    return effectivePage(await this.load(tenant, sessionId), format, offset, limit);
  }

  async block(tenant: string, sessionId: string, blockId: string) {
    const loaded = await this.load(tenant, sessionId);
    const doc =
      loaded.blocks.find((b) => b.blockId === blockId) ?? (await this.reads.block(tenant, sessionId, blockId));
    if (!doc) throw new NotFoundError(`block ${blockId} of session ${sessionId} not found`);
    return blockDetail(loaded, doc);
  }

  async tokens(tenant: string, sessionId: string) {
    return tokenSeries(await this.load(tenant, sessionId));
  }

  private async load(tenant: string, sessionId: string): Promise<LoadedSession> {
    const session = await this.sessions.find(tenant, sessionId);
    if (!session) throw new SessionNotFoundError(sessionId);
    return this.loadDocument(session);
  }

  private async loadDocument(session: SessionDocument): Promise<LoadedSession> {
    const [messages, blocks] = await Promise.all([
      this.messageCache.messages(session._id, session.messageCount),
      this.blockCache.blocks(session.tenant, session._id),
    ]);
    return { session, messages, blocks: blocks.docs };
  }
}

/** A listed session: its numbers as `GET …/stats` answers them. */
function summaryOf(session: SessionDocument, loaded: LoadedSession): SessionSummaryDto {
  const stats = statsView(loaded);
  return {
    sessionId: session._id,
    ...(session.config.provider !== undefined && { provider: session.config.provider }),
    ...(session.config.model !== undefined && { model: session.config.model }),
    messageCount: session.messageCount,
    rawTokens: stats.rawTokens,
    effectiveTokens: stats.effectiveTokens,
    historyBudget: stats.historyBudget,
    usageRatio: Number.isFinite(stats.usageRatio) ? Math.round(stats.usageRatio * 10_000) / 10_000 : -1,
    fits: stats.fits,
    blocks: stats.blocks,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}

/** A listed session whose stats are not ready yet: what its document says. */
function pendingSummary(session: SessionDocument): SessionSummaryDto {
  return {
    sessionId: session._id,
    ...(session.config.provider !== undefined && { provider: session.config.provider }),
    ...(session.config.model !== undefined && { model: session.config.model }),
    messageCount: session.messageCount,
    statsPending: true,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}
