import type { CompactionBlock, PositionRange, Stage } from './block';
import type { ChatMessage } from './message';
import type { PolicyOverrides } from './policy';
import type { WindowOverrides } from '../windows';

/** A session's configuration; every field optional (defaults: provider default window, seed defaults). */
export interface SessionConfig {
  readonly provider?: string;
  readonly model?: string;
  /** Explicit window: beats the registry. */
  readonly contextWindow?: number;
  /** Max output tokens; absent → seed 002's reserve rule. */
  readonly maxOutputTokens?: number;
  readonly systemPromptTokens?: number;
  readonly toolDefinitionTokens?: number;
  readonly policy?: PolicyOverrides;
  /** 'exact' → js-tiktoken for OpenAI providers. */
  readonly tokenizer?: 'estimate' | 'exact';
  readonly windowOverrides?: WindowOverrides;
}

export interface SummaryRequest {
  /** Deterministic: hash of session, range and position. */
  readonly requestId: string;
  readonly sessionId: string;
  /** Original positions the summary will replace. */
  readonly range: PositionRange;
  /** The effective messages to summarize (earlier summaries excluded). */
  readonly messages: readonly ChatMessage[];
  /** The earlier summary this one must absorb (iterative merging). */
  readonly previousSummary?: string;
  readonly basedOnPosition: number;
  /** Tokens the replaced messages take now: the summary must be smaller. */
  readonly tokensBefore: number;
  /**
   * Set when the range is already condensed deterministically (policy `digestSummaries`): the block whose
   * replacement the model's summary supersedes when it arrives; `tokensBefore` is then that replacement's size.
   */
  readonly supersedes?: { readonly blockId: string; readonly stage: Stage };
}

export type CompactionTrigger = 'auto' | 'manual' | 'overflow';

export type SessionEvent =
  | { readonly type: 'SessionConfigured'; readonly data: { readonly config: SessionConfig } }
  | { readonly type: 'MessageAppended'; readonly data: { readonly position: number; readonly message: ChatMessage } }
  | { readonly type: 'BlockCreated'; readonly data: { readonly block: CompactionBlock } }
  | { readonly type: 'BlockReverted'; readonly data: { readonly blockId: string } }
  | { readonly type: 'SummaryRequested'; readonly data: { readonly request: SummaryRequest } }
  | { readonly type: 'SummaryFailed'; readonly data: { readonly requestId: string; readonly reason: string } }
  | {
      readonly type: 'SummaryRejected';
      readonly data: {
        readonly requestId: string;
        /** `offline-answer`: a summary superseding a deterministic replacement came from the offline summarizer. */
        readonly reason: 'stale-range' | 'not-smaller' | 'offline-answer';
      };
    }
  | {
      readonly type: 'CompactionCompleted';
      readonly data: {
        readonly trigger: CompactionTrigger;
        readonly tokensBefore: number;
        readonly tokensAfter: number;
        readonly blockIds: readonly string[];
        readonly stages: readonly Stage[];
        readonly fits: boolean;
        readonly summaryRequested: boolean;
      };
    }
  | {
      readonly type: 'CompactionSkipped';
      readonly data: {
        readonly trigger: CompactionTrigger;
        readonly reason: 'fits' | 'summary-pending' | 'no-progress';
      };
    }
  | {
      readonly type: 'CompactionRefused';
      readonly data: {
        readonly trigger: CompactionTrigger;
        readonly reason: 'budget-unusable' | 'fixed-overhead-over-threshold' | 'no-progress-guard' | 'compaction-limit';
        readonly detail: string;
      };
    };

export type SessionEventType = SessionEvent['type'];

export type SessionCommand =
  | { readonly type: 'Compact'; readonly data: { readonly trigger: CompactionTrigger; readonly errorText?: string } }
  | {
      readonly type: 'CompleteSummary';
      readonly data: {
        readonly requestId: string;
        readonly summary: string;
        /** Who wrote it (`offline`: the deterministic summarizer, e.g. as the fallback of a failed model call). */
        readonly provider?: string;
      };
    }
  | { readonly type: 'FailSummary'; readonly data: { readonly requestId: string; readonly reason: string } }
  /** The session paused (policy `digestSummaries: 'pause'`): ask a model summary of the largest note shown. */
  | { readonly type: 'SummarizeNote' };
