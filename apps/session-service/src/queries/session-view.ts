import { sessionConfigViolations, toEngineConfig, type SessionConfiguredData } from '@ctxledger/contracts';
import {
  assertLaminar,
  isLaminarFamily,
  blockStructureViolations,
  buildEffectiveEntries,
  computeBudget,
  configure,
  effectiveTotal,
  evolve,
  findToolPairViolations,
  foldEvents,
  lastNoOpText,
  repairToolPairs,
  runCommand,
  sessionStats,
  type ChatMessage,
  type CompactionBlock,
  type HistoryBudget,
  type SessionConfig,
  type SessionEvent,
  type SessionState,
  type SessionStats,
  type Stage,
} from '@ctxledger/context-engine';
import type { BlockDocument } from '../read-models/blocks/block.document';
import type { MessageView } from '../read-models/messages/message.document';
import type { SessionDocument } from '../read-models/sessions/session.document';

// The views compose the three read models (a session's document, its messages, its blocks) through the engine's
// overlay: they belong to the query use cases, not to one read model's folder.

/** One session as read from the read model: its document, its messages by position, its blocks by creation. */
export interface LoadedSession {
  readonly session: SessionDocument;
  readonly messages: readonly MessageView[];
  /** The blocks the views overlay (`usableBlocks`: the stored ones that break the overlay left out). */
  readonly blocks: readonly BlockDocument[];
  /** Stored blocks left out of every view, with the reason. */
  readonly skippedBlocks?: readonly SkippedBlock[];
}

export interface SkippedBlock {
  readonly blockId: string;
  readonly reason: string;
}

const structureOf = new WeakMap<BlockDocument, string[]>();

/**
 * The stored blocks a view may overlay, in creation order. The projector refuses malformed blocks, but a read
 * never fails on stored data (a document of an older version, one written by hand): a block whose structure is
 * wrong, or that partially overlaps a block active when it was created (the overlay needs nested-or-disjoint
 * edits), is left out with the reason. Blocks whose messages are not all projected yet are kept (not shown).
 */
export function usableBlocks(
  docs: readonly BlockDocument[],
  messageCount: number,
): { blocks: BlockDocument[]; skipped: SkippedBlock[] } {
  const skipped: SkippedBlock[] = [];
  const kept = new Set<BlockDocument>();
  const events: { offset: number; doc: BlockDocument; revert: boolean }[] = [];
  for (const doc of docs) {
    let problems = structureOf.get(doc);
    if (!problems) {
      problems = blockStructureViolations(doc.block as CompactionBlock);
      if (doc.block.sessionId !== doc.sessionId) problems.push(`block.sessionId: is not ${doc.sessionId}`);
      structureOf.set(doc, problems);
    }
    if (problems.length > 0) skipped.push({ blockId: doc.blockId, reason: problems.join('; ') });
    else if (!covered(doc, messageCount)) kept.add(doc);
    else {
      events.push({ offset: doc.createdOffset, doc, revert: false });
      if (!doc.active && doc.revertedOffset !== undefined)
        events.push({ offset: doc.revertedOffset, doc, revert: true });
    }
  }
  // The common case, in one sweep: all of them together are laminar, so none partially overlaps an active one.
  const created = events.filter((e) => !e.revert).map((e) => e.doc);
  if (isLaminarFamily(created.map((d) => d.block))) {
    for (const doc of created) kept.add(doc);
    return { blocks: docs.filter((d) => kept.has(d)), skipped };
  }
  // Else the engine's order: creations and reverts as the block stream had them; laminar against the active ones.
  events.sort((a, b) => a.offset - b.offset);
  const active: BlockDocument[] = [];
  for (const { doc, revert } of events) {
    if (revert) {
      const at = active.indexOf(doc);
      if (at >= 0) active.splice(at, 1);
      continue;
    }
    try {
      assertLaminar(
        doc.block,
        active.map((d) => d.block),
      );
      active.push(doc);
      kept.add(doc);
    } catch (error) {
      skipped.push({ blockId: doc.blockId, reason: (error as Error).message });
    }
  }
  return { blocks: docs.filter((d) => kept.has(d)), skipped };
}

export interface HistoryView {
  readonly messages: ChatMessage[];
  readonly tokens: number;
  readonly budget: number;
  readonly fits: boolean;
  readonly reason?: string;
  /** The stored view was over the budget and the cheap stages were applied on read (nothing published). */
  readonly compactedOnRead: boolean;
  readonly onReadStages: Stage[];
  readonly activeBlocks: number;
}

/**
 * The engine configuration of a session document. A stored configuration the engine refuses (stored by an
 * older version, whose checks were looser) is served on the default policy, and the stats say so: a read never
 * fails on stored data. Kept per document object (the read side reuses them while the session is unchanged).
 */
const engineConfigs = new WeakMap<SessionDocument, { config: SessionConfig; problem?: string }>();
export function engineConfigOf(session: SessionDocument): { config: SessionConfig; problem?: string } {
  let known = engineConfigs.get(session);
  if (!known) {
    const violations = sessionConfigViolations(session.config);
    known =
      violations.length === 0
        ? { config: toEngineConfig(session.config) }
        : {
            config: toEngineConfig({ ...session.config, policy: undefined, threshold: undefined }),
            problem:
              `the stored policy is refused (${violations.join('; ')}): ` +
              'the session is served on the default policy until it is configured again',
          };
    engineConfigs.set(session, known);
  }
  return known;
}

/** A block is shown once every message it covers is projected (a block may arrive before its messages). */
const covered = (doc: BlockDocument, messageCount: number) => doc.block.range.to < messageCount;

/** The budget of a `budget=N` override: N tokens of history, nothing else reserved. */
function overrideBudget(tokens: number, state: Pick<SessionState, 'policy'>): HistoryBudget {
  return computeBudget({ contextWindow: tokens + 1, maxOutputTokens: 1 }, state.policy);
}

/**
 * The effective (or full) history with its token count against the budget. Fast path: the stored
 * originals and active blocks overlaid with the stored token counts. Invariant 1: when the effective view
 * is over the budget (compaction still in flight), the session's events are folded into an engine state
 * and a Compact with summaries off is decided on it — the cheap stages, applied on read, never published.
 */
export function historyView(loaded: LoadedSession, view: 'effective' | 'full', budgetOverride?: number): HistoryView {
  const engine = configure(engineConfigOf(loaded.session).config);
  const { counter } = engine;
  const originals = loaded.messages.map((m) => m.message);
  const tokens = loaded.messages.map((m) =>
    m.tokenProfile === counter.profile.provider ? m.tokens : counter.message(m.message),
  );
  const budget = budgetOverride ?? engine.budget.historyBudget;
  const unusable = budgetOverride === undefined ? engine.budget.unusableReason : undefined;
  const framing = (n: number) => (n > 0 ? counter.perConversation : 0);
  const base = { compactedOnRead: false, onReadStages: [] as Stage[] };

  if (view === 'full') {
    const total = tokens.reduce((a, b) => a + b, 0) + framing(originals.length);
    const fits = !unusable && total <= budget;
    return {
      ...base,
      messages: originals,
      tokens: total,
      budget,
      fits,
      ...(!fits && {
        reason:
          unusable ?? 'the full view shows every original message; ask for view=effective to get the compacted one',
      }),
      activeBlocks: 0,
    };
  }

  const active = loaded.blocks.filter((b) => b.active && covered(b, originals.length)).map((b) => b.block);
  const entries = buildEffectiveEntries(originals, tokens, active, (m) => counter.message(m));
  const total = entries.reduce((a, e) => a + e.tokens, 0) + framing(entries.length);
  if (!unusable && total <= budget) {
    return {
      ...base,
      messages: entries.map((e) => e.message),
      tokens: total,
      budget,
      fits: true,
      activeBlocks: active.length,
    };
  }
  if (unusable) {
    return {
      ...base,
      messages: entries.map((e) => e.message),
      tokens: total,
      budget,
      fits: false,
      reason: unusable,
      activeBlocks: active.length,
    };
  }
  return compactOnRead(loaded, budget, budgetOverride);
}

function compactOnRead(loaded: LoadedSession, budget: number, budgetOverride: number | undefined): HistoryView {
  const { config } = engineConfigOf(loaded.session);
  let state = engineState(loaded, { ...config, policy: { ...(config.policy ?? {}), summaries: 'off' } });
  if (budgetOverride !== undefined) state = { ...state, budget: overrideBudget(budgetOverride, state) };
  const run = runCommand(state, { type: 'Compact', data: { trigger: 'auto' } });
  state = run.state;
  const stages: Stage[] = run.events.flatMap((e) => (e.type === 'BlockCreated' ? [e.data.block.stage] : []));
  const refusal = lastNoOpText(run.events);
  const tokens = effectiveTotal(state);
  const fits = tokens <= budget;
  const reason = fits ? undefined : (refusal ?? sessionStats(state).reason ?? 'the history is over the budget');
  return {
    messages: state.entries.map((e) => e.message),
    tokens,
    budget,
    fits,
    ...(reason !== undefined && { reason }),
    compactedOnRead: stages.length > 0,
    onReadStages: [...new Set(stages)],
    activeBlocks: state.active.length,
  };
}

/**
 * The engine's state of the session, folded from the read model: the configuration, every message at its
 * position, and the blocks created and reverted in block-stream order.
 */
export function engineState(
  loaded: LoadedSession,
  config: SessionConfig = engineConfigOf(loaded.session).config,
): SessionState {
  const n = loaded.messages.length;
  const events: SessionEvent[] = [{ type: 'SessionConfigured', data: { config } }];
  loaded.messages.forEach((m, position) =>
    events.push({ type: 'MessageAppended', data: { position, message: m.message } }),
  );
  const blockEvents: { offset: number; event: SessionEvent }[] = [];
  for (const doc of loaded.blocks) {
    if (!covered(doc, n)) continue;
    blockEvents.push({
      offset: doc.createdOffset,
      event: { type: 'BlockCreated', data: { block: doc.block as CompactionBlock } },
    });
    if (!doc.active && doc.revertedOffset !== undefined) {
      blockEvents.push({
        offset: doc.revertedOffset,
        event: { type: 'BlockReverted', data: { blockId: doc.blockId } },
      });
    }
  }
  blockEvents.sort((a, b) => a.offset - b.offset);
  let state = foldEvents(loaded.session._id, events);
  for (const { event } of blockEvents) {
    try {
      state = evolve(state, event);
    } catch {
      // usableBlocks left out what the overlay refuses; a block the engine still refuses is left out too.
    }
  }
  return state;
}

export interface StatsView extends SessionStats {
  readonly blocks: {
    readonly total: number;
    readonly active: number;
    readonly reverted: number;
    readonly pending: number;
    /** Stored blocks left out of the view: they break the overlay (see `skippedBlocks`). */
    readonly skipped: number;
  };
  /** Stored blocks left out of the views (they break the overlay), with the reason. */
  readonly skippedBlocks?: readonly SkippedBlock[];
  /** The configuration in force: what the session asked for (texts by their token counts) and the ratios applied. */
  readonly config: {
    readonly requested: Record<string, unknown>;
    readonly thresholdRatio: number;
    readonly targetRatio: number;
    /** Set when the stored configuration could not be applied as it is. */
    readonly problem?: string;
  };
  /** The last configuration refused (dead-lettered): the session kept the one above. */
  readonly refusedConfig?: {
    readonly eventId: string;
    readonly offset: string;
    readonly time: string;
    readonly reason: string;
    readonly config?: SessionConfiguredData;
  };
}

export function statsView(loaded: LoadedSession): StatsView {
  const state = engineState(loaded);
  const stats = sessionStats(state);
  const n = loaded.messages.length;
  const { session } = loaded;
  // (loaded.blocks are the usable ones; total counts the skipped too)
  const { systemPrompt: _prompt, toolDefinitions: _tools, ...requested } = session.config;
  const { problem } = engineConfigOf(session);
  return {
    ...stats,
    blocks: {
      total: loaded.blocks.length + (loaded.skippedBlocks?.length ?? 0),
      active: loaded.blocks.filter((b) => b.active && covered(b, n)).length,
      reverted: loaded.blocks.filter((b) => !b.active).length,
      /** Stored blocks whose messages are not all projected yet. */
      pending: loaded.blocks.filter((b) => b.active && !covered(b, n)).length,
      skipped: loaded.skippedBlocks?.length ?? 0,
    },
    ...(loaded.skippedBlocks?.length && { skippedBlocks: loaded.skippedBlocks }),
    config: {
      requested: {
        ...requested,
        ...(state.config.systemPromptTokens !== undefined && { systemPromptTokens: state.config.systemPromptTokens }),
        ...(state.config.toolDefinitionTokens !== undefined && {
          toolDefinitionTokens: state.config.toolDefinitionTokens,
        }),
      },
      thresholdRatio: state.policy.thresholdRatio,
      targetRatio: state.policy.targetRatio,
      ...(problem !== undefined && { problem }),
    },
    ...(session.refusedConfig && {
      refusedConfig: { ...session.refusedConfig, offset: String(session.refusedConfig.offset) },
    }),
  };
}

/** What the tool-pair repair of a served history changed (only present when it changed something). */
export interface ToolPairRepairView {
  /** Results with no call before them (a raw producer's orphan, a result placed before its call): removed. */
  readonly orphanResultsRemoved: number;
  /** Calls no result answers, in the middle of the history: answered with a placeholder result. */
  readonly missingResultsSynthesized: number;
  /** Calls of the final batch still waiting for their result (provider formats only): a placeholder result. */
  readonly pendingResultsSynthesized: number;
  readonly duplicateResultsRemoved: number;
  readonly displacedResultsMoved: number;
  readonly duplicateCallIdsRenamed: number;
}

export const MISSING_RESULT_TEXT = '[Tool result unavailable: the session has no result for this call]';
export const PENDING_RESULT_TEXT = '[Tool result pending: the session has no result for this call yet]';

/**
 * A served history providers accept (invariant 2): OpenAI and Anthropic reject a tool result without its call
 * and a call without its result. The effective view (every format) and the provider formats of the full view
 * go through the engine's tool-pair repair: orphan and duplicate results removed, displaced ones moved back,
 * a call without result answered with a placeholder. A call of the final batch still waiting for its result
 * (the agent is running the tool) stays as it is in the generic format and gets a placeholder in the provider
 * formats (a provider refuses the request otherwise). The full generic view is the record of what was appended,
 * served as it is.
 */
export function repairForServing(
  messages: ChatMessage[],
  view: 'effective' | 'full',
  format: 'openai' | 'anthropic' | 'generic',
): { messages: ChatMessage[]; repair?: ToolPairRepairView } {
  if (view === 'full' && format === 'generic') return { messages };
  const options = {
    allowPendingTail: format === 'generic',
    syntheticResult: { missing: MISSING_RESULT_TEXT, pending: PENDING_RESULT_TEXT },
  };
  const violations = findToolPairViolations(messages, options);
  if (violations.length === 0) return { messages };
  const repaired = repairToolPairs(messages, options);
  const pending = violations.filter((v) => v.kind === 'missing-result' && v.pending).length;
  return {
    messages: repaired.messages,
    repair: {
      orphanResultsRemoved: repaired.orphanResultsRemoved,
      missingResultsSynthesized: repaired.missingResultsSynthesized - pending,
      pendingResultsSynthesized: pending,
      duplicateResultsRemoved: repaired.duplicateResultsRemoved,
      displacedResultsMoved: repaired.displacedResultsMoved,
      duplicateCallIdsRenamed: repaired.duplicateCallIdsRenamed,
    },
  };
}
