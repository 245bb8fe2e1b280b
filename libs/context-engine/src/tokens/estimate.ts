import type { ChatMessage } from '../model/message';

/**
 * Heuristic token estimation (seeds 002/003/004), calibrated on ../shared/data (tools/calibrate-tokens.ts).
 * chars/4 under-counts Claude on agent transcripts by ~39% (DESIGN.md): the profiles below use measured
 * chars-per-token for prose and code, blended by the share of code-like symbols in the text.
 */
export interface TokenProfile {
  readonly provider: string;
  /** ASCII characters per token for plain prose. */
  readonly proseCharsPerToken: number;
  /** ASCII characters per token for symbol-dense text (code, JSON, logs). */
  readonly codeCharsPerToken: number;
  /** Tokens per non-ASCII character (CJK ≈ 1, accented Latin less). */
  readonly nonAsciiTokensPerChar: number;
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

/*
 * Calibration (`npx tsx tools/calibrate-tokens.ts`, ../shared/data/sessions.jsonl sha256 ac57f5fa…):
 *   anthropic, promptTokens deltas in chunks ≥ 2 000 real tokens (188 chunks, 648 k tokens):
 *     MAPE 10.5 %, bias +3.1 % (pi +3.2 %, Claude Code −9.9 % on only 3 chunks); real ≈ 2.88 chars/token.
 *     The naive chars/4 on the same chunks: MAPE 32.1 %, bias −27.9 % (under-counts every chunk).
 *     A grid over prose/code rates put the unbiased optimum at 3.2 / 3.0 (MAPE 10.3 %); the 1.03 margin
 *     keeps the bias on the safe (over-estimating) side.
 *   openai, SWE-agent text vs exact js-tiktoken (cl100k_base for GPT-4, o200k_base for GPT-4o), chunks
 *     ≥ 500 tokens (142 chunks, 152 k tokens): MAPE 9.9 %, bias +3.1 %; real ≈ 3.79 chars/token.
 *     Use `tokenizer: 'exact'` for OpenAI sessions to remove this error entirely.
 */
const ANTHROPIC: TokenProfile = {
  provider: 'anthropic',
  proseCharsPerToken: 3.2,
  codeCharsPerToken: 3.0,
  nonAsciiTokensPerChar: 1,
  perMessage: 4,
  perConversation: 24,
  perToolCall: 12,
  perToolResult: 10,
  safetyMargin: 1.03,
};

const OPENAI: TokenProfile = {
  provider: 'openai',
  proseCharsPerToken: 4.6,
  codeCharsPerToken: 3.4,
  nonAsciiTokensPerChar: 0.8,
  perMessage: 4,
  perConversation: 3,
  perToolCall: 8,
  perToolResult: 4,
  safetyMargin: 1.03,
};

/** Seed 002's relative multipliers (Google 1.18, Mistral 1.26 vs the GPT baseline), applied to OpenAI's rates. */
const fromOpenAi = (provider: string, multiplier: number): TokenProfile => ({
  ...OPENAI,
  provider,
  proseCharsPerToken: OPENAI.proseCharsPerToken / multiplier,
  codeCharsPerToken: OPENAI.codeCharsPerToken / multiplier,
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

const SYMBOLS = new Set('{}[]()<>;=:"\'`/\\|&*_$#@+-%^~,.!?'.split('').map((c) => c.charCodeAt(0)));

/** Text-only estimate: one pass over the string, no allocation. */
export function estimateTextTokens(text: string, profile: TokenProfile): number {
  const n = text.length;
  if (n === 0) return 0;
  let ascii = 0;
  let nonAscii = 0;
  let symbols = 0;
  let digits = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      ascii++;
      if (SYMBOLS.has(c)) symbols++;
      else if (c >= 48 && c <= 57) digits++;
    } else if (c < 0xdc00 || c > 0xdfff) {
      nonAscii++; // a low surrogate continues the previous character
    }
  }
  // Symbol density of prose is ~3-5%, of code/JSON 12-25%: blend the two rates between those.
  const density = ascii === 0 ? 0 : (symbols + digits * 0.5) / ascii;
  const codeShare = Math.min(1, Math.max(0, (density - 0.05) / 0.1));
  const cpt = profile.proseCharsPerToken - (profile.proseCharsPerToken - profile.codeCharsPerToken) * codeShare;
  return Math.ceil((ascii / cpt + nonAscii * profile.nonAsciiTokensPerChar) * profile.safetyMargin);
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
  const message = (m: ChatMessage): number => {
    let t = profile.perMessage + text(m.content);
    if (m.toolCalls) {
      for (const c of m.toolCalls) t += profile.perToolCall + text(c.name) + text(c.arguments);
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
