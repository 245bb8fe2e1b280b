/**
 * Context-window registry: seed 002's table. Resolution order: per-session override > exact model >
 * longest model prefix (dated / versioned names, e.g. `claude-sonnet-4-20250514-v2`) > provider default >
 * global default.
 */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** Seed 002: when max output tokens is not given, reserve min(64 000, 35 % of the window). */
export const MAX_DEFAULT_OUTPUT_RESERVE = 64_000;
export const DEFAULT_OUTPUT_RESERVE_RATIO = 0.35;

type Table = Readonly<Record<string, Readonly<Record<string, number>>>>;

const GEMINI = {
  _default: 1_048_576,
  'gemini-2.5-pro': 1_048_576,
  'gemini-2.5-flash': 1_048_576,
  'gemini-2.0-flash': 1_048_576,
  'gemini-1.5-pro': 2_097_152,
  'gemini-1.5-flash': 1_048_576,
};

/** Seed 002's MODEL_CONTEXT_WINDOWS, verbatim. */
export const MODEL_CONTEXT_WINDOWS: Table = {
  anthropic: {
    _default: 200_000,
    'claude-opus-4-20250514': 200_000,
    'claude-sonnet-4-20250514': 200_000,
    'claude-3-7-sonnet-20250219': 200_000,
    'claude-3-5-sonnet-20241022': 200_000,
    'claude-3-5-haiku-20241022': 200_000,
    'claude-3-opus-20240229': 200_000,
    'claude-3-sonnet-20240229': 200_000,
    'claude-3-haiku-20240307': 200_000,
  },
  openai: {
    _default: 128_000,
    'gpt-4o': 128_000,
    'gpt-4o-mini': 128_000,
    'gpt-4-turbo': 128_000,
    'gpt-4': 8_192,
    'gpt-3.5-turbo': 16_385,
    o1: 200_000,
    'o1-mini': 128_000,
    'o1-pro': 200_000,
    o3: 200_000,
    'o3-mini': 200_000,
    'o4-mini': 200_000,
    'gpt-4.1': 1_047_576,
    'gpt-4.1-mini': 1_047_576,
    'gpt-4.1-nano': 1_047_576,
    'gpt-5': 1_047_576,
  },
  'google-ai': { ...GEMINI, 'gemini-3-flash-preview': 1_048_576, 'gemini-3-pro-preview': 1_048_576 },
  vertex: GEMINI,
  bedrock: {
    _default: 200_000,
    'anthropic.claude-3-5-sonnet-20241022-v2:0': 200_000,
    'anthropic.claude-3-5-haiku-20241022-v1:0': 200_000,
    'anthropic.claude-3-opus-20240229-v1:0': 200_000,
    'anthropic.claude-3-sonnet-20240229-v1:0': 200_000,
    'anthropic.claude-3-haiku-20240307-v1:0': 200_000,
    'amazon.nova-pro-v1:0': 300_000,
    'amazon.nova-lite-v1:0': 300_000,
  },
  azure: { _default: 128_000, 'gpt-4o': 128_000, 'gpt-4o-mini': 128_000, 'gpt-4-turbo': 128_000, 'gpt-4': 8_192 },
  mistral: {
    _default: 128_000,
    'mistral-large-latest': 128_000,
    'mistral-medium-latest': 32_000,
    'mistral-small-latest': 128_000,
    'codestral-latest': 256_000,
  },
  ollama: { _default: 128_000 },
  litellm: { _default: 128_000 },
  huggingface: { _default: 32_000 },
  sagemaker: { _default: 128_000 },
};

/**
 * Families added by us (NOT in seed 002), limited to windows we are sure of from the vendors' model pages.
 * Claude 4.x families all have 200k standard windows; prefix matching maps dated names onto them.
 */
export const ADDED_CONTEXT_WINDOWS: Table = {
  anthropic: {
    'claude-opus-4': 200_000,
    'claude-sonnet-4': 200_000,
    'claude-haiku-4': 200_000,
    'claude-3-5-sonnet': 200_000,
    'claude-3-5-haiku': 200_000,
  },
  google: GEMINI,
};

export type WindowOverrides = Readonly<Record<string, number>>;

const norm = (s: string) => s.trim().toLowerCase();

function lookup(table: Readonly<Record<string, number>> | undefined, model: string): number | undefined {
  if (!table) return undefined;
  if (table[model] !== undefined) return table[model];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (key !== '_default' && model.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

/**
 * The model's context window. `overrides` maps `provider/model`, `model` or `provider` keys (exact or prefix)
 * to a window; the session's explicit `contextWindow` beats everything.
 */
export function getContextWindowSize(provider?: string, model?: string, overrides?: WindowOverrides): number {
  const p = norm(provider ?? '');
  const m = norm(model ?? '').replace(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`), '');
  if (overrides) {
    const o: Record<string, number> = {};
    for (const [k, v] of Object.entries(overrides)) o[norm(k)] = v;
    const hit = lookup(o, `${p}/${m}`) ?? (m ? lookup(o, m) : undefined) ?? o[p];
    if (hit !== undefined) return hit;
  }
  if (m) {
    const merged = { ...(ADDED_CONTEXT_WINDOWS[p] ?? {}), ...(MODEL_CONTEXT_WINDOWS[p] ?? {}) };
    const hit = lookup(merged, m);
    if (hit !== undefined) return hit;
    // Unknown provider: search every provider's table (a model name is usually unambiguous).
    if (!MODEL_CONTEXT_WINDOWS[p]) {
      for (const table of [...Object.values(MODEL_CONTEXT_WINDOWS), ...Object.values(ADDED_CONTEXT_WINDOWS)]) {
        const any = lookup(table, m);
        if (any !== undefined) return any;
      }
    }
  }
  return MODEL_CONTEXT_WINDOWS[p]?.['_default'] ?? ADDED_CONTEXT_WINDOWS[p]?.['_default'] ?? DEFAULT_CONTEXT_WINDOW;
}

/** Seed 002: explicit max output tokens, else min(64 000, 35 % of the window). */
export function getOutputReserve(contextWindow: number, maxOutputTokens?: number): number {
  if (maxOutputTokens !== undefined && maxOutputTokens !== null) return Math.max(0, maxOutputTokens);
  return Math.min(MAX_DEFAULT_OUTPUT_RESERVE, Math.floor(contextWindow * DEFAULT_OUTPUT_RESERVE_RATIO));
}

/** Input tokens available: window − output reserve. */
export function getAvailableInputTokens(contextWindow: number, maxOutputTokens?: number): number {
  return Math.max(0, contextWindow - getOutputReserve(contextWindow, maxOutputTokens));
}
