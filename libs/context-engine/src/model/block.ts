import type { ChatMessage } from './message';

/** The compaction stages, in pipeline order (seeds 002/003/000/004). */
export const STAGES = [
  'truncate',
  'prune',
  'dedupe',
  'split-turn',
  'summary',
  'digest',
  'sliding-window',
  'keep-within-budget',
  'emergency',
] as const;
export type Stage = (typeof STAGES)[number];

/** Inclusive span over ORIGINAL message positions (0-based index of the message in the session). */
export interface PositionRange {
  readonly from: number;
  readonly to: number;
}

/** One replacement: the originals in [from, to] are shown as `replacement` (possibly empty). */
export interface BlockEdit extends PositionRange {
  readonly replacement: readonly ChatMessage[];
}

/**
 * An immutable compaction decision. Edits are over original positions and are computed on the effective
 * view of their time, so every edit is either nested in or disjoint from every earlier active edit.
 */
export interface CompactionBlock {
  readonly id: string;
  readonly sessionId: string;
  readonly stage: Stage;
  /** The span covered by all edits (min from, max to). */
  readonly range: PositionRange;
  readonly edits: readonly BlockEdit[];
  /** Tokens of what the edits replaced in the then-effective view. */
  readonly tokensBefore: number;
  /** Tokens of the replacements. */
  readonly tokensAfter: number;
  /** tokensBefore − tokensAfter; always > 0 (never-grows guard). */
  readonly tokensSaved: number;
  /** The last original position the decision saw. */
  readonly basedOnPosition: number;
  readonly engineVersion: string;
}

export const ENGINE_VERSION = 'context-engine/1.0.0';
