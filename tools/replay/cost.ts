/**
 * Prompt-cache-aware input cost of an agent's model calls. Pure: no I/O, no engine state.
 *
 * Every model call sends a prompt (the history at that moment). Providers bill the part of it that repeats
 * the start of an earlier prompt (the cached prefix) at a discount, and some bill writing the rest into the
 * cache at a premium. Compaction makes prompts smaller but rewrites part of them, which invalidates the cache
 * from the first changed message on. This module prices a sequence of prompts under each provider's rules, in
 * **base-input-token equivalents**: a token billed at the provider's normal input price counts 1, a cache
 * read counts `cacheRead`, a cache write `cacheWrite`. Ratios between two runs therefore do not depend on
 * the model's actual price.
 *
 * Model of the cache (the same for every provider, documented simplifications):
 * - the cached prefix of a call is the longest common prefix, in messages, of its prompt and the previous
 *   call's prompt, in the order the provider receives it (see `hoistsSystem`); as if a cache breakpoint sat
 *   at the end of every prompt and every call came within the cache's lifetime (no clock in a transcript).
 *   Anthropic reads a cache entry only at a breakpoint (it looks back ~20 content blocks for one), so a
 *   prefix cut in the middle of the previous prompt is counted a little more favourably than it is billed;
 * - a prefix shorter than `minCacheableTokens` is not cached (nor written), and a previous prompt under it
 *   left nothing to read;
 * - fixed tokens in front of the messages (framing, system prompt, tool definitions) never change.
 */

export type CacheProvider = 'anthropic' | 'openai' | 'google';

export const CACHE_PROVIDERS: readonly CacheProvider[] = ['anthropic', 'openai', 'google'];

export interface CachePricing {
  readonly provider: CacheProvider;
  /** What the multipliers are taken from. */
  readonly source: string;
  /** Multiplier of the base input price for a token neither read from nor written to the cache. */
  readonly uncached: number;
  /** Multiplier for a token written to the cache (the part of a cacheable prompt after the cached prefix). */
  readonly cacheWrite: number;
  /** Multiplier for a token read from the cache. */
  readonly cacheRead: number;
  /** Prompts / prefixes shorter than this are not cached. */
  readonly minCacheableTokens: number;
  /** Beyond the minimum, cached prefixes grow in steps of this many tokens (1: any length). */
  readonly granularity: number;
  /**
   * System-role messages are sent before all others (Anthropic's `system` parameter, Gemini's
   * `systemInstruction`; the engine's synthetic summary/digest/marker messages are `system` messages), as
   * one text: any change to them leaves only the fixed tokens cached.
   */
  readonly hoistsSystem: boolean;
}

export const PRICING: Readonly<Record<CacheProvider, CachePricing>> = {
  anthropic: {
    provider: 'anthropic',
    source:
      'Anthropic prompt caching, 5-minute TTL: cache write 1.25×, cache read 0.1×, uncached 1× the base input price; minimum cacheable prompt 1024 tokens (Claude Sonnet 4/4.5, Opus 4/4.1; Opus 4.5 and Haiku 4.5 need 4096)',
    uncached: 1,
    cacheWrite: 1.25,
    cacheRead: 0.1,
    minCacheableTokens: 1024,
    granularity: 1,
    hoistsSystem: true,
  },
  openai: {
    provider: 'openai',
    source:
      'OpenAI automatic prompt caching as priced for the GPT-4o / o1 family: cached input 0.5×, no write premium; prompts of 1024+ tokens, cached prefix in 128-token steps beyond the first 1024 (GPT-4.1 bills cached input at 0.25×, GPT-5 at 0.1×)',
    uncached: 1,
    cacheWrite: 1,
    cacheRead: 0.5,
    minCacheableTokens: 1024,
    granularity: 128,
    hoistsSystem: false,
  },
  google: {
    provider: 'google',
    source:
      'Gemini implicit caching (2.5 models): cached input 0.25×, no write premium and no storage charge; minimum 2048 tokens (the documented minimum varies by model, 1024–4096)',
    uncached: 1,
    cacheWrite: 1,
    cacheRead: 0.25,
    minCacheableTokens: 2048,
    granularity: 1,
    hoistsSystem: true,
  },
};

/** The pricing for an engine provider name: openai / azure → openai, google / gemini / vertex → google, else anthropic. */
export function pricingFor(provider: string | undefined): CachePricing {
  const p = (provider ?? '').toLowerCase();
  if (/openai|azure/.test(p)) return PRICING.openai;
  if (/google|gemini|vertex/.test(p)) return PRICING.google;
  return PRICING.anthropic;
}

/** The input tokens of one call, split by how they are billed. */
export interface CallBill {
  readonly promptTokens: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly uncached: number;
  /** uncached × uncached + cacheWrite × cacheWrite + cacheRead × cacheRead multipliers. */
  readonly billed: number;
}

/**
 * Bill one call: `promptTokens` in all, `commonPrefixTokens` of them equal to the start of the previous
 * call's prompt of `previousPromptTokens` (0 for the first call).
 */
export function billCall(
  pricing: CachePricing,
  promptTokens: number,
  commonPrefixTokens: number,
  previousPromptTokens: number,
): CallBill {
  const min = pricing.minCacheableTokens;
  const readable = previousPromptTokens >= min ? Math.min(commonPrefixTokens, previousPromptTokens, promptTokens) : 0;
  const cacheRead =
    readable >= min ? min + Math.floor((readable - min) / pricing.granularity) * pricing.granularity : 0;
  const cacheWrite = promptTokens >= min ? promptTokens - cacheRead : 0;
  const uncached = promptTokens - cacheRead - cacheWrite;
  return {
    promptTokens,
    cacheRead,
    cacheWrite,
    uncached,
    billed: uncached * pricing.uncached + cacheWrite * pricing.cacheWrite + cacheRead * pricing.cacheRead,
  };
}

export interface CostTotals {
  calls: number;
  promptTokens: number;
  cacheRead: number;
  cacheWrite: number;
  uncached: number;
  billed: number;
}

export const emptyTotals = (): CostTotals => ({
  calls: 0,
  promptTokens: 0,
  cacheRead: 0,
  cacheWrite: 0,
  uncached: 0,
  billed: 0,
});

export function addBill(into: CostTotals, bill: CallBill | CostTotals): CostTotals {
  into.calls += 'calls' in bill ? bill.calls : 1;
  into.promptTokens += bill.promptTokens;
  into.cacheRead += bill.cacheRead;
  into.cacheWrite += bill.cacheWrite;
  into.uncached += bill.uncached;
  into.billed += bill.billed;
  return into;
}

/** What a prompt is made of: messages (only what the comparison needs) and their token counts. */
export interface PromptMessage {
  readonly role: string;
  readonly content: string;
  readonly toolCallId?: string;
  readonly toolCalls?: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
}
export interface PromptItem {
  readonly message: PromptMessage;
  readonly tokens: number;
}

/** Same message content (the same object, or equal role, content, call id and calls). */
export function sameMessage(a: PromptMessage, b: PromptMessage): boolean {
  if (a === b) return true;
  if (a.role !== b.role || a.content !== b.content || (a.toolCallId ?? '') !== (b.toolCallId ?? '')) return false;
  const ca = a.toolCalls ?? [];
  const cb = b.toolCalls ?? [];
  return (
    ca.length === cb.length &&
    ca.every((c, i) => c.id === cb[i]!.id && c.name === cb[i]!.name && c.arguments === cb[i]!.arguments)
  );
}

const isSystem = (item: PromptItem): boolean => item.message.role === 'system';

/** Length of the common prefix of `a[0, aLen)` and `b`, at most `limit`. */
function commonPrefixLength(a: readonly PromptItem[], aLen: number, b: readonly PromptItem[], limit = aLen): number {
  const n = Math.min(aLen, b.length, limit);
  let i = 0;
  while (i < n && (a[i] === b[i] || sameMessage(a[i]!.message, b[i]!.message))) i++;
  return i;
}

/** Tokens of the common prefix in the order the provider receives the prompt (system messages first if hoisted). */
function commonPrefixTokens(a: readonly PromptItem[], aLen: number, b: readonly PromptItem[], hoist: boolean): number {
  let tokens = 0;
  if (!hoist) {
    const n = commonPrefixLength(a, aLen, b);
    for (let i = 0; i < n; i++) tokens += a[i]!.tokens;
    return tokens;
  }
  const sysA: PromptItem[] = [];
  const restA: PromptItem[] = [];
  for (let i = 0; i < aLen; i++) (isSystem(a[i]!) ? sysA : restA).push(a[i]!);
  const sysB: PromptItem[] = [];
  const restB: PromptItem[] = [];
  for (const item of b) (isSystem(item) ? sysB : restB).push(item);
  // The system messages are one text: equal or not cached at all.
  if (sysA.length !== sysB.length || commonPrefixLength(sysA, sysA.length, sysB) !== sysA.length) return 0;
  for (const s of sysA) tokens += s.tokens;
  const n = commonPrefixLength(restA, restA.length, restB);
  for (let i = 0; i < n; i++) tokens += restA[i]!.tokens;
  return tokens;
}

/**
 * Follows the prompts of one session call by call and bills them. The prompt is an array of items that may
 * be **extended in place** between calls (the engine's effective history grows that way) or replaced by a
 * new array (a compaction): an array seen before and only grown costs O(new items) per call; a new array is
 * compared with the previous prompt once, in O(its length). Nothing is ever serialized.
 */
export class PromptCacheMeter {
  readonly totals: CostTotals = emptyTotals();
  /** Compactions that changed a message of the previous call's prompt (see `compaction`). */
  invalidatingCompactions = 0;
  private prev: readonly PromptItem[] | null = null;
  private prevLen = 0;
  private prevTokens = 0;
  private prevSystemTokens = 0;
  /** Leading messages of the previous prompt still unchanged in the current view (for `compaction`). */
  private livePrefix = 0;

  /** `fixedTokens`: in front of every non-empty prompt and never changing (framing, system prompt, tools). */
  constructor(
    readonly pricing: CachePricing,
    private readonly fixedTokens = 0,
  ) {}

  /** Bill a call whose prompt is `items` (the view just before the model's answer is appended). */
  call(items: readonly PromptItem[]): CallBill {
    const hoist = this.pricing.hoistsSystem;
    let tokens: number;
    let systemTokens: number;
    let prefix: number;
    if (this.prev !== null && items === this.prev && items.length >= this.prevLen) {
      // Only appended to since the previous call: the whole previous prompt is the prefix, unless a system
      // message was appended and the provider hoists them (the system text changed).
      tokens = this.prevTokens - (this.prevLen > 0 ? this.fixedTokens : 0);
      systemTokens = this.prevSystemTokens;
      let newSystem = false;
      for (let i = this.prevLen; i < items.length; i++) {
        tokens += items[i]!.tokens;
        if (isSystem(items[i]!)) {
          systemTokens += items[i]!.tokens;
          newSystem = true;
        }
      }
      prefix = hoist && newSystem ? (this.prevLen > 0 ? this.fixedTokens : 0) : this.prevTokens;
    } else {
      tokens = 0;
      systemTokens = 0;
      for (const item of items) {
        tokens += item.tokens;
        if (isSystem(item)) systemTokens += item.tokens;
      }
      prefix =
        this.prev === null || this.prevLen === 0 || items.length === 0
          ? 0
          : this.fixedTokens + commonPrefixTokens(this.prev, this.prevLen, items, hoist);
    }
    const promptTokens = items.length > 0 ? tokens + this.fixedTokens : 0;
    const bill = billCall(this.pricing, promptTokens, prefix, this.prevTokens);
    addBill(this.totals, bill);
    this.prev = items;
    this.prevLen = items.length;
    this.prevTokens = promptTokens;
    this.prevSystemTokens = systemTokens;
    this.livePrefix = items.length;
    return bill;
  }

  /**
   * After a compaction step, with the view it left: whether it changed a message that was in the previous
   * call's prompt and was still unchanged before this step (such a compaction invalidates the cache from
   * there). Compactions before the first call or that only touched messages appended since it do not count.
   */
  compaction(items: readonly PromptItem[]): boolean {
    if (this.prev === null || this.livePrefix === 0 || items === this.prev) return false;
    const kept = commonPrefixLength(this.prev, this.prevLen, items, this.livePrefix);
    if (kept >= this.livePrefix) return false;
    this.livePrefix = kept;
    this.invalidatingCompactions++;
    return true;
  }
}
