import { Inject, Injectable, Logger } from '@nestjs/common';
import { configure, renderHistory } from '@ctxledger/context-engine';
import { SERVICE_ENV } from '@ctxledger/platform';
import { LRUCache } from 'lru-cache';
import { ProjectionMetrics } from '../projector/projection.metrics';
import { ProjectionProgress } from '../projector/projection-progress';
import type { SessionServiceEnv } from '../config/session-service.env';
import type { BlockDocument } from '../read-models/blocks/block.document';
import { ReadTimeoutError, SessionNotFoundError } from '../session-errors';
import type { SessionDocument } from '../read-models/sessions/session.document';
import type { HistoryQueryDto } from './dto/history-query.dto';
import type { HistoryResponseDto } from './dto/history-response.dto';
import { BlockCache } from '../read-models/blocks/block-cache';
import { MessageCache } from '../read-models/messages/message-cache';
import { ProjectedSessions } from '../read-models/sessions/projected-sessions';
import {
  engineConfigOf,
  historyView,
  repairForServing,
  statsView,
  usableBlocks,
  type LoadedSession,
  type StatsView,
  type ToolPairRepairView,
} from './session-view';

/** The metric label of each repair count. */
const REPAIR_KINDS: Record<keyof ToolPairRepairView, string> = {
  orphanResultsRemoved: 'orphan-result',
  missingResultsSynthesized: 'missing-result',
  pendingResultsSynthesized: 'pending-result',
  duplicateResultsRemoved: 'duplicate-result',
  displacedResultsMoved: 'displaced-result',
  duplicateCallIdsRenamed: 'duplicate-call-id',
};

/**
 * When a read waiting for its write looks at the database again if no in-process news arrives (the session
 * may be projected by another instance): after 25 ms, then twice as long each time up to 400 ms, so many
 * waiting readers do not add up to a load that slows the projector they wait for.
 */
const POLL_MS = { first: 25, max: 400 };
/**
 * History responses kept for reads that find nothing changed (keyed by session, tenant and query), bounded by
 * their tokens (~4 characters each): about 16 MB of message text in all; a larger single response is not kept.
 */
const MAX_CACHED_RESPONSE_TOKENS = 4_000_000;

/**
 * The read use cases, served from the read model: the session and its block head from memory while this
 * instance projects the session's partition (else one `_id` lookup each), the messages and blocks from caches.
 */
@Injectable()
export class SessionQueriesService {
  private readonly logger = new Logger(SessionQueriesService.name);
  /** Stored blocks already logged as left out (each logged once per process; every read counts them). */
  private readonly loggedSkips = new LRUCache<string, true>({ max: 10_000 });
  private readonly defaultWaitMs: number;
  private readonly maxWaitMs: number;
  /** The last response per session and query, valid while the session's offset and block head are the same. */
  private readonly responses = new LRUCache<
    string,
    { lastOffset: number; blocksHead: number; response: HistoryResponseDto }
  >({
    maxSize: MAX_CACHED_RESPONSE_TOKENS,
    maxEntrySize: MAX_CACHED_RESPONSE_TOKENS / 4,
    sizeCalculation: (entry) => Math.max(1, entry.response.tokens),
  });

  /** The last `usableBlocks` answer per session and tenant (see usableBlocksOf). */
  private readonly usable = new LRUCache<
    string,
    { head: number; messageCount: number; usable: ReturnType<typeof usableBlocks> }
  >({ max: 10_000 });

  constructor(
    private readonly sessions: ProjectedSessions,
    private readonly progress: ProjectionProgress,
    private readonly metrics: ProjectionMetrics,
    private readonly messageCache: MessageCache,
    private readonly blockCache: BlockCache,
    @Inject(SERVICE_ENV) env: SessionServiceEnv,
  ) {
    this.defaultWaitMs = env.READ_YOUR_WRITES_DEFAULT_MS;
    this.maxWaitMs = env.READ_YOUR_WRITES_MAX_MS;
  }

  async history(tenant: string, sessionId: string, query: HistoryQueryDto): Promise<HistoryResponseDto> {
    const { loaded, blocksHead } = await this.load(tenant, sessionId, query.after, query.waitMs);
    // Nothing changed since the last read of the same query: the same answer (the view is a pure function of
    // the session document, its messages and its blocks; the offset and the head pin all three).
    const key = JSON.stringify([tenant, sessionId, query.view, query.format, query.budget ?? null]);
    const hit = this.responses.get(key);
    const response =
      hit && hit.lastOffset === loaded.session.lastOffset && hit.blocksHead === blocksHead
        ? hit.response
        : this.render(sessionId, query, loaded);
    for (const [field, count] of Object.entries(response.toolPairRepair ?? {})) {
      if (count > 0) this.metrics.toolPairRepairs.inc({ kind: REPAIR_KINDS[field as keyof ToolPairRepairView] }, count);
    }
    if (response === hit?.response) {
      if (response.compactedOnRead) this.metrics.compactedOnRead.inc();
    } else if (Number.isNaN(blocksHead)) this.responses.delete(key);
    // A response over the entry limit is not kept (and drops an older one of the key).
    else this.responses.set(key, { lastOffset: loaded.session.lastOffset, blocksHead, response });
    return response;
  }

  private render(sessionId: string, query: HistoryQueryDto, loaded: LoadedSession): HistoryResponseDto {
    const view = historyView(loaded, query.view, query.budget);
    if (view.compactedOnRead) this.metrics.compactedOnRead.inc();
    const { messages: served, repair } = repairForServing(view.messages, query.view, query.format);
    let { tokens, fits, reason } = view;
    if (repair) {
      // Recounted: placeholders added, orphans removed.
      const { counter } = configure(engineConfigOf(loaded.session).config);
      tokens = served.reduce((t, m) => t + counter.message(m), served.length > 0 ? counter.perConversation : 0);
      if (fits && tokens > view.budget) {
        fits = false;
        reason = 'the placeholder results of calls without one put the history over the budget';
      }
    }
    const rendered = renderHistory(served, query.format, { system: loaded.session.config.systemPrompt });
    const [messages, system] = Array.isArray(rendered)
      ? [rendered as unknown[], undefined] // the system prompt is the first message
      : [rendered.messages as unknown[], rendered.system];
    return {
      sessionId,
      view: query.view,
      format: query.format,
      messages,
      ...(system !== undefined && { system }),
      messageCount: served.length,
      originalMessageCount: loaded.messages.length,
      tokens,
      budget: view.budget,
      usageRatio: view.budget > 0 ? round(tokens / view.budget) : 0,
      fits,
      ...(reason !== undefined && { reason }),
      ...(repair && { toolPairRepair: { ...repair } }),
      compactedOnRead: view.compactedOnRead,
      onReadStages: view.onReadStages,
      activeBlocks: view.activeBlocks,
      projectedOffset: String(loaded.session.lastOffset),
    };
  }

  async stats(
    tenant: string,
    sessionId: string,
    after?: string,
    waitMs?: number,
  ): Promise<StatsView & { projectedOffset: string }> {
    const { loaded } = await this.load(tenant, sessionId, after, waitMs);
    const stats = statsView(loaded);
    return {
      ...stats,
      usageRatio: Number.isFinite(stats.usageRatio) ? round(stats.usageRatio) : stats.usageRatio,
      projectedOffset: String(loaded.session.lastOffset),
    };
  }

  async blocks(tenant: string, sessionId: string, after?: string, waitMs?: number) {
    const { session } = await this.sessionAfter(tenant, sessionId, after, waitMs);
    const { docs } = await this.blockCache.blocks(tenant, sessionId);
    const skipped = new Map(usableBlocks(docs, session.messageCount).skipped.map((k) => [k.blockId, k.reason]));
    return {
      sessionId,
      blocks: docs.map((d) => ({
        id: d.blockId,
        stage: d.block.stage,
        range: d.block.range,
        edits: d.block.edits.map((e) => ({ from: e.from, to: e.to, replacementMessages: e.replacement.length })),
        tokensBefore: d.block.tokensBefore,
        tokensAfter: d.block.tokensAfter,
        tokensSaved: d.block.tokensSaved,
        basedOnPosition: d.block.basedOnPosition,
        engineVersion: d.block.engineVersion,
        active: d.active,
        /** Every message the block covers is projected (else it is not shown yet). */
        applicable: d.block.range.to < session.messageCount,
        createdAt: d.createdAt,
        ...(d.revertedAt !== undefined && { revertedAt: d.revertedAt }),
        /** Left out of every view: the block breaks the overlay (the reason). */
        ...(skipped.has(d.blockId) && { skipped: skipped.get(d.blockId) }),
      })),
    };
  }

  private async load(
    tenant: string,
    sessionId: string,
    after?: string,
    waitMs?: number,
  ): Promise<{ loaded: LoadedSession; blocksHead: number }> {
    // The blocks are looked up alongside the session; again if the session had to be waited for. Not alongside
    // when this instance knows the session has not reached `after` yet (a read right after a write): it waits.
    const known = after === undefined ? undefined : this.sessions.peek(tenant, sessionId);
    const early = known && known.lastOffset < Number(after) ? undefined : this.blockCache.blocks(tenant, sessionId);
    early?.catch(() => undefined); // awaited below unless the session lookup fails first
    const { session, waited } = await this.sessionAfter(tenant, sessionId, after, waitMs);
    const [messages, blocks] = await Promise.all([
      this.messageCache.messages(sessionId, session.messageCount),
      waited || !early ? this.blockCache.blocks(tenant, sessionId) : early,
    ]);
    // A read never fails on stored data: blocks that break the overlay are left out, logged and counted.
    const usable = this.usableBlocksOf(tenant, sessionId, blocks, messages.length);
    for (const skip of usable.skipped) {
      this.metrics.readBlocksSkipped.inc();
      const key = `${sessionId}/${skip.blockId}`;
      if (this.loggedSkips.has(key)) continue;
      this.loggedSkips.set(key, true);
      this.logger.error(`stored block ${key} is left out of the session's views: ${skip.reason}`);
    }
    return {
      loaded: { session, messages, blocks: usable.blocks, skippedBlocks: usable.skipped },
      blocksHead: blocks.head,
    };
  }

  /**
   * `usableBlocks` of the session's blocks, kept while its block head and message count are the same (they pin
   * the documents and which of them are covered): a read of an unchanged session of thousands of blocks does
   * not sweep them again.
   */
  private usableBlocksOf(
    tenant: string,
    sessionId: string,
    blocks: { head: number; docs: readonly BlockDocument[] },
    messageCount: number,
  ): ReturnType<typeof usableBlocks> {
    const key = `${tenant}/${sessionId}`;
    const known = this.usable.get(key);
    if (known && known.head === blocks.head && known.messageCount === messageCount) return known.usable;
    const usable = usableBlocks(blocks.docs, messageCount);
    if (Number.isNaN(blocks.head)) this.usable.delete(key);
    else this.usable.set(key, { head: blocks.head, messageCount, usable });
    return usable;
  }

  /**
   * The session once its projection reached `after` (a waitToken: the session-stream offset of a write).
   * Waits at most waitMs (default READ_YOUR_WRITES_DEFAULT_MS, capped at READ_YOUR_WRITES_MAX_MS); then ReadTimeoutError (504).
   */
  private async sessionAfter(
    tenant: string,
    sessionId: string,
    after?: string,
    waitMs?: number,
  ): Promise<{ session: SessionDocument; waited: boolean }> {
    const target = after === undefined ? undefined : Number(after);
    const budget = Math.min(waitMs ?? this.defaultWaitMs, this.maxWaitMs);
    const deadline = Date.now() + budget;
    let poll = POLL_MS.first;
    for (let waited = false; ; waited = true) {
      const session = await this.sessions.find(tenant, sessionId);
      if (session && (target === undefined || session.lastOffset >= target)) return { session, waited };
      if (target === undefined) throw new SessionNotFoundError(sessionId);
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new ReadTimeoutError(
          `waited ${budget} ms for the read model of session ${sessionId} to reach offset ${after}; ` +
            (session ? `it has projected up to offset ${session.lastOffset}` : 'the session is not projected yet') +
            ' — retry, or check the projection lag on /metrics',
        );
      }
      await this.progress.next(sessionId, Math.min(left, poll));
      poll = Math.min(POLL_MS.max, poll * 2);
    }
  }
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;
