import type { BlockSummary, PositionedMessage, UiMessage } from './lib/messages';

export type { BlockSummary, PositionedMessage, UiMessage };

export interface SessionSummary {
  sessionId: string;
  provider?: string;
  model?: string;
  messageCount: number;
  /** Set while the service computes the stats (a large session not read since it started): no numbers yet. */
  statsPending?: boolean;
  rawTokens?: number;
  effectiveTokens?: number;
  historyBudget?: number;
  usageRatio?: number;
  fits?: boolean;
  blocks?: { total: number; active: number; reverted: number; pending: number };
  createdAt: string;
  updatedAt: string;
}

export interface SessionList {
  sessions: SessionSummary[];
  total: number;
  offset: number;
  limit: number;
}

export interface Stats {
  sessionId: string;
  messageCount: number;
  effectiveMessageCount: number;
  rawTokens: number;
  effectiveTokens: number;
  contextWindow: number;
  historyBudget: number;
  thresholdTokens: number;
  usageRatio: number;
  fits: boolean;
  reason?: string;
  savedByStage: Record<string, number>;
  summaryPending: boolean;
  blocks: { total: number; active: number; reverted: number; pending: number };
  projectedOffset: string;
}

export interface MessagePage {
  total: number;
  offset: number;
  messages: PositionedMessage[];
}

export interface BlockDetail {
  id: string;
  stage: string;
  range: { from: number; to: number };
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  basedOnPosition: number;
  engineVersion: string;
  active: boolean;
  applicable: boolean;
  createdAt: string;
  revertedAt?: string;
  edits: {
    from: number;
    to: number;
    originalMessages: number;
    originalTokens: number;
    replacement: UiMessage[];
    replacementTokens: number;
  }[];
}

export interface EffectivePage {
  format: string;
  total: number;
  offset: number;
  wireMessageCount: number;
  tokens: number;
  budget: number;
  fits: boolean;
  entries: {
    index: number;
    from: number;
    to: number;
    blockId?: string;
    stage?: string;
    tokens: number;
    message: UiMessage;
    wire: unknown;
  }[];
}

export interface TokenSeries {
  positions: number;
  raw: number[];
  effective: number[];
  budget: number;
  threshold: number;
  markers: { blockId: string; stage: string; position: number; tokensSaved: number; active: boolean }[];
}
