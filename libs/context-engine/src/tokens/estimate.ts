import type { ChatMessage } from '../model/message';

import { BASE_SEGMENT_TOKENS, SEGMENT_KIND_COUNT, SEGMENT_KINDS, scanSegments, type SegmentRates } from './segments';

/**
 * Heuristic token estimation (seeds 002/003/004) by content: segments.ts splits a text into the segments a BPE
 * tokenizer's pre-tokenizer produces (words, digit groups, punctuation runs, whitespace, line breaks, opaque ids,
 * CJK, other scripts, symbols) and a profile prices each kind. Calibrated by tools/calibrate-tokens.ts; figures below.
 */
export interface TokenProfile {
  readonly provider: string;
  /** Tokens per segment of each kind (segments.ts) for this provider's tokenizer. */
  readonly segmentTokens: SegmentRates;
  /**
   * Count tool-call arguments as the values they encode (JSON string escapes decoded): Anthropic renders a call's
   * input as parameters, so `\n` in the JSON is a line break there; OpenAI tokenizes the JSON text as it is.
   */
  readonly decodeArgumentEscapes: boolean;
  /** Framing of one message (role, delimiters). */
  readonly perMessage: number;
  /** Framing of one conversation (reply priming). */
  readonly perConversation: number;
  /** Framing of one tool call (id, type, block markup), besides its name and arguments. */
  readonly perToolCall: number;
  /** Framing of one tool result (tool_use_id, block markup), besides its content. */
  readonly perToolResult: number;
  /** Multiplier applied to content estimates; > 1 errs on the safe side. */
  readonly safetyMargin: number;
}

const scaled = (rates: SegmentRates, k: number): SegmentRates =>
  Object.fromEntries(SEGMENT_KINDS.map((kind) => [kind, rates[kind] * k])) as unknown as SegmentRates;

/*
 * Calibration (`npx tsx tools/calibrate-tokens.ts`, ../shared/data/sessions.jsonl sha256 ac57f5fa…). Errors are
 * Σ estimate / Σ real − 1 (> 0 = over-estimate); "was" = the previous estimator (prose/code rates blended by the
 * share of symbols, margin 1.03).
 *   anthropic = base rates × 1.24: Claude 4.x counts ~1.24 tokens per cl100k token on agent content (a scale fitted
 *     on the promptTokens deltas: 1.246 on all, 1.246 on the Sonnet 4.5 session alone, 1.244 on the Opus 4.5 one).
 *     Framing fitted on the deltas: ~62 tokens per tool call + result (block markup, ids), ~3 per message; set to
 *     6 per message and 56 per call + result, which leans turns of plain text (under-counted, below) to the safe
 *     side at no cost to tool turns. Tool-call arguments count decoded (Claude renders the input as parameters:
 *     on the raw JSON the edit/write arguments were over-counted by ~10 %). Margin 1.05.
 *     Chunks of deltas ≥ 2 000 real tokens (189 chunks, 653 k tokens; real 2.88 chars/token): MAPE 7.4 %, bias
 *     +2.7 % (pi +2.8 %, Claude Code −12.3 % on 3 chunks), 21 % of chunks under (was MAPE 10.5 %, bias +3.1 %,
 *     48 % under). chars/4: MAPE 32 %, bias −28 %, every chunk under.
 *     Per session: −12.3 % .. +4.8 % (was −9.9 % .. +20.8 %, 4 of 10 sessions beyond ±15 %); the low one is the
 *     Claude Code main session (Opus 4.5 keeps its thinking blocks in context; the transcript has none of them).
 *     By content: read results +3.9 %, edit arguments +2.3 %, bash output +5.6 %; deltas of mostly assistant or
 *     user text −5..−9 % (thinking, turn framing).
 *     Over-fitting checks (scale + framing refitted, margin kept): leave one session out −12.1 % .. +6.2 %; split
 *     half (fit on the first half of each session, score the second, and back) bias +2.9 % / +2.5 %, MAPE 10.6 % /
 *     5.1 %. The base rates are fitted to cl100k, not to these counts (segments.ts).
 *   openai = base rates (cl100k), margin 1.02; SWE-agent texts against exact js-tiktoken (cl100k_base for GPT-4,
 *     o200k_base for GPT-4o), chunks ≥ 500 tokens (142 chunks, 152 k tokens): MAPE 5.5 %, bias +2.6 % (was
 *     9.9 %, +3.1 %); per session −8.0 % .. +8.9 % (was −21.1 % .. +16.2 %). o200k counts non-English text
 *     lower than cl100k, so the estimate errs high there. `tokenizer: 'exact'` removes this error for OpenAI.
 *   google, mistral: the OpenAI rates × seed 002's multipliers (not calibrated here).
 */
const ANTHROPIC: TokenProfile = {
  provider: 'anthropic',
  segmentTokens: scaled(BASE_SEGMENT_TOKENS, 1.24),
  decodeArgumentEscapes: true,
  perMessage: 6,
  perConversation: 24,
  perToolCall: 30,
  perToolResult: 26,
  safetyMargin: 1.05,
};

const OPENAI: TokenProfile = {
  provider: 'openai',
  segmentTokens: BASE_SEGMENT_TOKENS,
  decodeArgumentEscapes: false,
  perMessage: 4,
  perConversation: 3,
  perToolCall: 8,
  perToolResult: 4,
  safetyMargin: 1.02,
};

/** Seed 002's relative multipliers (Google 1.18, Mistral 1.26 vs the GPT baseline), applied to OpenAI's rates. */
const fromOpenAi = (provider: string, multiplier: number): TokenProfile => ({
  ...OPENAI,
  provider,
  segmentTokens: scaled(OPENAI.segmentTokens, multiplier),
});

export const TOKEN_PROFILES: Readonly<Record<string, TokenProfile>> = {
  anthropic: ANTHROPIC,
  bedrock: { ...ANTHROPIC, provider: 'bedrock' },
  openai: OPENAI,
  azure: { ...OPENAI, provider: 'azure' },
  google: fromOpenAi('google', 1.18),
  'google-ai': fromOpenAi('google-ai', 1.18),
  vertex: fromOpenAi('vertex', 1.18),
  mistral: fromOpenAi('mistral', 1.26),
  // Unknown providers: the conservative (Anthropic-like) rates, so we over- rather than under-estimate.
  default: { ...ANTHROPIC, provider: 'default' },
};

export function tokenProfileFor(provider?: string): TokenProfile {
  const key = (provider ?? '').toLowerCase();
  return TOKEN_PROFILES[key] ?? TOKEN_PROFILES['default']!;
}

// Segment counts of the text being estimated: reused, so an estimate allocates nothing.
const counts = new Float64Array(SEGMENT_KIND_COUNT);

/**
 * Text-only estimate: one pass over the string (segments.ts), no allocation. `decodeJsonEscapes` counts a JSON
 * text by the values it encodes (tool-call arguments for providers that render them so).
 */
export function estimateTextTokens(text: string, profile: TokenProfile, decodeJsonEscapes = false): number {
  if (text.length === 0) return 0;
  counts.fill(0);
  scanSegments(text, counts, decodeJsonEscapes);
  const rates = profile.segmentTokens;
  let tokens = 0;
  for (let k = 0; k < SEGMENT_KIND_COUNT; k++) tokens += counts[k]! * rates[SEGMENT_KINDS[k]!];
  return Math.ceil(tokens * profile.safetyMargin);
}

/** Seed 003's image clamp: ~750 bytes per token, floor 85, cap 16 000. */
export const imageTokens = (bytes: number): number => Math.min(16_000, Math.max(85, Math.floor(bytes / 750)));

export interface Tokenizer {
  readonly name: string;
  /** Exact token count of a string. */
  count(text: string): number;
}

/** Counts tokens of messages; one instance per session configuration. */
export interface TokenCounter {
  readonly profile: TokenProfile;
  readonly tokenizer?: Tokenizer;
  text(text: string): number;
  message(message: ChatMessage): number;
  /** Constant per-conversation framing, counted once per history. */
  readonly perConversation: number;
}

export function createTokenCounter(profile: TokenProfile, tokenizer?: Tokenizer): TokenCounter {
  const text = tokenizer
    ? (s: string) => (s.length === 0 ? 0 : tokenizer.count(s))
    : (s: string) => estimateTextTokens(s, profile);
  const args = tokenizer ? text : (s: string) => estimateTextTokens(s, profile, profile.decodeArgumentEscapes);
  const message = (m: ChatMessage): number => {
    let t = profile.perMessage + text(m.content);
    if (m.toolCalls) {
      for (const c of m.toolCalls) t += profile.perToolCall + text(c.name) + args(c.arguments);
    }
    if (m.role === 'tool') t += profile.perToolResult + (m.toolName ? text(m.toolName) : 0);
    if (m.images) for (const img of m.images) t += imageTokens(img.bytes);
    return t;
  };
  return { profile, tokenizer, text, message, perConversation: profile.perConversation };
}

/** Tokens of a whole history (messages + conversation framing). */
export function estimateMessagesTokens(messages: readonly ChatMessage[], counter: TokenCounter): number {
  let total = messages.length > 0 ? counter.perConversation : 0;
  for (const m of messages) total += counter.message(m);
  return total;
}

/** Tokens of tool definitions as sent to the provider (name, description, JSON schema), for `toolDefinitionTokens`. */
export function estimateToolDefinitionsTokens(definitions: readonly unknown[], counter: TokenCounter): number {
  return definitions.reduce<number>(
    (sum, d) => sum + counter.profile.perToolCall + counter.text(JSON.stringify(d) ?? ''),
    0,
  );
}
