/**
 * Classifies what an LLM provider (or its SDK) threw, so callers know whether compacting can help
 * (`overflow`), waiting can help (`rate-limit`, `network`), or nothing will (`auth`, most `other`).
 *
 * Only fields that describe the error are read (message, error, code, status, cause, response body …),
 * never request bodies or headers: a prompt that happens to contain "prompt is too long", or an
 * `x-ratelimit-*` header on an overflow response, must not decide the classification.
 */
export type ProviderErrorKind = 'overflow' | 'rate-limit' | 'auth' | 'network' | 'other';

export interface ProviderErrorClassification {
  readonly kind: ProviderErrorKind;
  /** Best guess of who produced it: openai, anthropic, google, bedrock, mistral, openrouter, … */
  readonly provider?: string;
  /** Overflow only: the prompt (input) size the provider counted. */
  readonly actualTokens?: number;
  /** Overflow only: the context limit the provider stated. */
  readonly limitTokens?: number;
  /** Overflow only: the output tokens the request reserved, when the provider states them separately. */
  readonly outputTokens?: number;
  /** HTTP status, when the error carries one. */
  readonly status?: number;
  /** Whether the same request may succeed later unchanged. An overflow never does. */
  readonly retryable: boolean;
}

interface Evidence {
  /** Human-readable messages and machine codes/names, in the order found. */
  readonly texts: string[];
  readonly statuses: number[];
  readonly providers: string[];
  readonly numbers: Map<string, number>;
}

/** Keys whose values describe the error; everything else (headers, request, config, stack) is ignored. */
const TEXT_KEYS = [
  'message',
  'msg',
  'error',
  'errors',
  'error_message',
  'errorMessage',
  'detail',
  'details',
  'description',
  'reason',
  'raw',
  'type',
  'code',
  'status',
  'name',
  '__type',
  'cause',
] as const;
const NESTED_KEYS = ['cause', 'response', 'data', 'body', 'metadata', 'innererror', 'innerError', 'error'] as const;
const STATUS_KEYS = ['status', 'statusCode', 'status_code', 'httpStatusCode', 'code'] as const;
const PROVIDER_KEYS = ['provider', 'provider_name', 'providerName'] as const;
const NUMBER_KEYS = ['n_prompt_tokens', 'n_ctx'] as const;
const MAX_DEPTH = 6;

const isHttpStatus = (n: number): boolean => Number.isInteger(n) && n >= 100 && n <= 599;

function collect(value: unknown, depth: number, seen: Set<object>, ev: Evidence): void {
  if (depth > MAX_DEPTH || value === null || value === undefined) return;
  if (typeof value === 'string') {
    if (value.trim() === '') return;
    ev.texts.push(value);
    const status =
      /^\s*\[?(\d{3})\b(?![\d,.])/.exec(value) ?? /\b(?:status(?: code)?|HTTP)[:\s]+(\d{3})\b/i.exec(value);
    if (status && isHttpStatus(Number(status[1]))) ev.statuses.push(Number(status[1]));
    const brace = value.indexOf('{');
    if (brace >= 0) {
      const end = value.lastIndexOf('}');
      if (end > brace) {
        try {
          collect(JSON.parse(value.slice(brace, end + 1)), depth + 1, seen, ev);
        } catch {
          // not JSON: the text itself has been recorded
        }
      }
    }
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 20)) collect(item, depth + 1, seen, ev);
    return;
  }
  if (typeof value !== 'object') return;
  if (seen.has(value)) return;
  seen.add(value);
  const obj = value as Record<string, unknown>;

  for (const key of STATUS_KEYS) {
    const v = obj[key];
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{3}$/.test(v) ? Number(v) : NaN;
    if (isHttpStatus(n)) ev.statuses.push(n);
  }
  const meta = obj.$metadata;
  if (meta && typeof meta === 'object') {
    const n = (meta as Record<string, unknown>).httpStatusCode;
    if (typeof n === 'number' && isHttpStatus(n)) ev.statuses.push(n);
  }
  for (const key of PROVIDER_KEYS) {
    const v = obj[key];
    if (typeof v === 'string' && v.trim() !== '') ev.providers.push(v.trim().toLowerCase());
  }
  for (const key of NUMBER_KEYS) {
    const v = obj[key];
    if (typeof v === 'number' && !ev.numbers.has(key)) ev.numbers.set(key, v);
  }
  for (const key of TEXT_KEYS) {
    const v = obj[key];
    if (typeof v === 'string') collect(v, depth + 1, seen, ev);
    else if (Array.isArray(v)) collect(v, depth + 1, seen, ev);
  }
  for (const key of NESTED_KEYS) {
    const v = obj[key];
    if (v && typeof v === 'object') collect(v, depth + 1, seen, ev);
  }
}

interface OverflowPattern {
  readonly re: RegExp;
  /** Provider implied by the wording; `unique` when no other provider words it so. */
  readonly provider?: string;
  readonly unique?: boolean;
}

/** Wordings that only a context/input-size rejection uses. Each wins over rate-limit words. */
const OVERFLOW_PATTERNS: readonly OverflowPattern[] = [
  { re: /this endpoint's maximum context length/i, provider: 'openrouter', unique: true },
  { re: /maximum context length is\s*[\d,]+/i, provider: 'openai' },
  { re: /context_length_exceeded/i, provider: 'openai' },
  { re: /content_length_exceeded/i, provider: 'azure', unique: true },
  { re: /reduce the length of the messages/i, provider: 'openai' },
  { re: /your input exceeds the context window/i, provider: 'openai', unique: true },
  { re: /input tokens exceed the configured limit/i, provider: 'openai', unique: true },
  { re: /string_above_max_length/i, provider: 'openai', unique: true },
  { re: /prompt is too long/i, provider: 'anthropic' },
  { re: /exceed context limit:\s*[\d,]+\s*\+\s*[\d,]+\s*>\s*[\d,]+/i, provider: 'anthropic', unique: true },
  { re: /request_too_large|request exceeds the maximum allowed number of bytes/i, provider: 'anthropic', unique: true },
  { re: /input token count.{0,40}exceeds the maximum/i, provider: 'google', unique: true },
  { re: /exceeds the maximum number of tokens/i, provider: 'google' },
  { re: /request payload size exceeds the limit/i, provider: 'google', unique: true },
  { re: /content is too long/i, provider: 'google' },
  { re: /input is too long/i, provider: 'bedrock' },
  { re: /exceeds? the model'?s? max(?:imum)? (?:context|input|prompt|sequence)/i, provider: 'bedrock' },
  { re: /too large for model with\s*[\d,]+\s*maximum context length/i, provider: 'mistral', unique: true },
  { re: /context length exceeded/i, provider: 'mistral' },
  { re: /maximum prompt length is\s*[\d,]+/i, provider: 'xai', unique: true },
  { re: /exceed_context_size_error|exceeds the available context size/i, provider: 'llama.cpp', unique: true },
  { re: /input is too large to process/i, provider: 'llama.cpp', unique: true },
  { re: /exceeded max context length by/i, provider: 'ollama', unique: true },
  { re: /input length exceeds the context length/i, provider: 'ollama', unique: true },
  { re: /longer than the maximum model length/i, provider: 'vllm', unique: true },
  { re: /input prompt \(\s*[\d,]+\s*tokens?\) is too long/i, provider: 'vllm', unique: true },
  { re: /total number of tokens in the prompt cannot exceed/i, provider: 'cohere', unique: true },
  { re: /context ?window ?exceeded|context[_ ]window[_ ](?:exceeded|overflow)/i, provider: 'litellm' },
  { re: /exceeds? (?:the )?(?:model'?s? )?context (?:window|length|limit|size)/i },
  { re: /(?:context|prompt|input) (?:is )?too (?:long|large) for (?:the )?(?:model|context)/i },
];

/** Words of a throttling or quota rejection: they veto the weak overflow signals below. */
const RATE_WORDS =
  /rate[ _-]?limit|too many requests|quota|throttl|per (?:minute|min|day|hour|second)|\b[TR]P[MD]\b|try again|retry|please wait|slow down|resource has been exhausted/i;
/** Signals that mean "too big" only when combined with size words and no rate words. */
const WEAK_OVERFLOW =
  /RESOURCE_EXHAUSTED|too many (?:input |prompt )?tokens|token limit|payload too large|request entity too large/i;
const SIZE_WORDS = /context|too (?:long|large)|input (?:size|length)|prompt (?:size|length)|tokens?\b/i;

const AUTH_RE =
  /authenticat|unauthori[sz]ed|invalid[ _-]?(?:api[ _-]?)?key|incorrect api key|invalid x-api-key|api key not valid|missing (?:an )?api key|no api key|permission[ _-]?denied|UNAUTHENTICATED|AccessDenied|forbidden/i;
const RATE_RE =
  /rate[ _-]?limit|too many requests|too many tokens|please wait|slow down|RESOURCE_EXHAUSTED|resource has been exhausted|quota|throttl|ThrottlingException|tokens per min|requests per min|\b[TR]P[MD]\b|overloaded|insufficient_quota/i;
/** Quota per minute says when to come back; an exhausted balance or a request over the per-minute cap does not. */
const RETRY_AFTER = /(?:retry|try again) (?:in|after)\b/i;
const NOT_RETRYABLE_RATE = /insufficient_quota|check your plan and billing|billing details|request too large for/i;
const NETWORK_RE =
  /\bE(?:CONNRESET|CONNREFUSED|CONNABORTED|TIMEDOUT|NOTFOUND|AI_AGAIN|PIPE|NETUNREACH|HOSTUNREACH|NETDOWN)\b|UND_ERR_\w+|socket hang up|network ?error|fetch failed|connection (?:error|reset|refused|closed|aborted)|timed? ?out\b|timeout|getaddrinfo|APIConnection(?:Timeout)?Error/i;

const PROVIDER_HINTS: readonly [RegExp, string][] = [
  [/openrouter/i, 'openrouter'],
  [/\bazure\b|ResponsibleAIPolicyViolation/i, 'azure'],
  [/bedrock|ValidationException|ThrottlingException|amazonaws|AccessDeniedException/i, 'bedrock'],
  [/anthropic|claude|overloaded_error|invalid_request_error.*"type":\s*"error"/i, 'anthropic'],
  [/generativelanguage|googleapis|gemini|vertex|RESOURCE_EXHAUSTED|INVALID_ARGUMENT|UNAUTHENTICATED/i, 'google'],
  [/mistral/i, 'mistral'],
  [/ollama/i, 'ollama'],
  [/vllm/i, 'vllm'],
  [/llama\.cpp|n_ctx/i, 'llama.cpp'],
  [/deepseek/i, 'deepseek'],
  [/\bgroq\b/i, 'groq'],
  [/openai|\bgpt-|\bo[134]-/i, 'openai'],
];

const num = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined;
  const n = Number(s.replace(/,/g, ''));
  return Number.isFinite(n) ? n : undefined;
};

interface Numbers {
  actualTokens?: number;
  limitTokens?: number;
  outputTokens?: number;
}

const N = '([\\d,]+)';
const NUMBER_EXTRACTORS: readonly [RegExp, (m: RegExpExecArray) => Numbers][] = [
  // Anthropic: "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000"
  [
    new RegExp(`exceed context limit:\\s*${N}\\s*\\+\\s*${N}\\s*>\\s*${N}`, 'i'),
    (m) => ({ actualTokens: num(m[1]), outputTokens: num(m[2]), limitTokens: num(m[3]) }),
  ],
  // Anthropic: "prompt is too long: 215000 tokens > 200000 maximum"
  [
    new RegExp(`prompt is too long:\\s*${N}\\s*tokens?\\s*>\\s*${N}`, 'i'),
    (m) => ({ actualTokens: num(m[1]), limitTokens: num(m[2]) }),
  ],
  // OpenAI / vLLM / OpenRouter: "you requested 150000 tokens (140000 in the messages, 10000 in the completion)"
  [
    new RegExp(
      `requested (?:about )?${N} tokens \\(${N} (?:in the messages|of text input)(?:,\\s*${N} (?:in the completion|in the output))?`,
      'i',
    ),
    (m) => ({ actualTokens: num(m[2]), outputTokens: num(m[3]) }),
  ],
  [new RegExp(`(?:resulted in|you requested(?: about)?) ${N} tokens`, 'i'), (m) => ({ actualTokens: num(m[1]) })],
  [new RegExp(`maximum context length is ${N}`, 'i'), (m) => ({ limitTokens: num(m[1]) })],
  // vLLM: "… maximum context length is 4096 tokens and your request has 3500 input tokens"; "'max_tokens' … is too large: 1000"
  [new RegExp(`request has ${N} input tokens`, 'i'), (m) => ({ actualTokens: num(m[1]) })],
  [new RegExp(`max_(?:completion_)?tokens'? is too large: ${N}`, 'i'), (m) => ({ outputTokens: num(m[1]) })],
  // OpenAI Responses: "Input tokens exceed the configured limit of 272000 tokens."
  [new RegExp(`configured limit of ${N}`, 'i'), (m) => ({ limitTokens: num(m[1]) })],
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
  [new RegExp(`input token count (?:\\(|is |of )?${N}`, 'i'), (m) => ({ actualTokens: num(m[1]) })],
  [new RegExp(`maximum number of tokens allowed (?:\\(|is |of )?${N}`, 'i'), (m) => ({ limitTokens: num(m[1]) })],
  // Mistral: "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length"
  [new RegExp(`prompt contains ${N} tokens`, 'i'), (m) => ({ actualTokens: num(m[1]) })],
  [new RegExp(`model with ${N} maximum context length`, 'i'), (m) => ({ limitTokens: num(m[1]) })],
  // xAI: "maximum prompt length is 131072 but the request contains 140000 tokens"
  [new RegExp(`maximum prompt length is ${N}`, 'i'), (m) => ({ limitTokens: num(m[1]) })],
  [new RegExp(`request contains ${N} tokens`, 'i'), (m) => ({ actualTokens: num(m[1]) })],
  // vLLM: "The decoder prompt (length 5000) is longer than the maximum model length of 4096."
  [new RegExp(`prompt \\(length ${N}\\)`, 'i'), (m) => ({ actualTokens: num(m[1]) })],
  [new RegExp(`maximum model length of ${N}`, 'i'), (m) => ({ limitTokens: num(m[1]) })],
  // vLLM: "Input prompt (5000 tokens) is too long and exceeds limit of 4096"
  [new RegExp(`input prompt \\(\\s*${N} tokens?\\)`, 'i'), (m) => ({ actualTokens: num(m[1]) })],
  [new RegExp(`exceeds limit of ${N}`, 'i'), (m) => ({ limitTokens: num(m[1]) })],
  // Cohere: "total number of tokens in the prompt cannot exceed 4081 - received 5000"
  [
    new RegExp(`cannot exceed ${N}\\s*-\\s*received ${N}`, 'i'),
    (m) => ({ limitTokens: num(m[1]), actualTokens: num(m[2]) }),
  ],
  // llama.cpp (text form of its JSON body)
  [/n_prompt_tokens"?\s*[:=]\s*(\d+)/i, (m) => ({ actualTokens: num(m[1]) })],
  [/n_ctx"?\s*[:=]\s*(\d+)/i, (m) => ({ limitTokens: num(m[1]) })],
  // Generic: "exceeds the context window of 128000 tokens"
  [new RegExp(`context (?:window|length|limit|size) (?:of|is) ${N}`, 'i'), (m) => ({ limitTokens: num(m[1]) })],
];

function extractNumbers(text: string, ev: Evidence): Numbers {
  const out: Numbers = {};
  const nPrompt = ev.numbers.get('n_prompt_tokens');
  const nCtx = ev.numbers.get('n_ctx');
  if (nPrompt !== undefined) out.actualTokens = nPrompt;
  if (nCtx !== undefined) out.limitTokens = nCtx;
  for (const [re, pick] of NUMBER_EXTRACTORS) {
    const m = re.exec(text);
    if (!m) continue;
    const found = pick(m);
    // (No count of tokens is 0: a phrase that reads as one around the message, `… maximum context length is 0`, is
    // not the provider's.)
    for (const key of ['actualTokens', 'limitTokens', 'outputTokens'] as const) {
      if (out[key] === undefined && found[key] !== undefined && found[key] > 0) out[key] = found[key];
    }
  }
  return out;
}

function providerOf(text: string, ev: Evidence, patternHit?: OverflowPattern): string | undefined {
  if (patternHit?.unique) return patternHit.provider;
  if (ev.providers.length > 0) return ev.providers[0];
  for (const [re, name] of PROVIDER_HINTS) if (re.test(text)) return name;
  return patternHit?.provider;
}

export function classifyProviderError(error: unknown): ProviderErrorClassification {
  const ev: Evidence = { texts: [], statuses: [], providers: [], numbers: new Map() };
  collect(error, 0, new Set(), ev);
  const text = ev.texts.join('\n');
  const status = ev.statuses[0];
  const withStatus = status === undefined ? {} : { status };

  const strong = OVERFLOW_PATTERNS.find((p) => p.re.test(text));
  const weak =
    !strong &&
    !RATE_WORDS.test(text) &&
    ((WEAK_OVERFLOW.test(text) && SIZE_WORDS.test(text)) || (status === 413 && /too large|too long/i.test(text)));
  if (strong || weak) {
    const provider = providerOf(text, ev, strong);
    return {
      kind: 'overflow',
      ...(provider ? { provider } : {}),
      ...extractNumbers(text, ev),
      ...withStatus,
      retryable: false,
    };
  }

  const provider = providerOf(text, ev);
  const base = { ...(provider ? { provider } : {}), ...withStatus };
  if (status === 401 || status === 403 || AUTH_RE.test(text)) return { kind: 'auth', ...base, retryable: false };
  if (status === 429 || status === 529 || RATE_RE.test(text)) {
    return { kind: 'rate-limit', ...base, retryable: !NOT_RETRYABLE_RATE.test(text) || RETRY_AFTER.test(text) };
  }
  if (NETWORK_RE.test(text)) return { kind: 'network', ...base, retryable: true };
  const retryable = status !== undefined && (status === 408 || status === 409 || status >= 500);
  return { kind: 'other', ...base, retryable };
}

/** True when the provider rejected the request because the input does not fit its context window. */
export function isContextOverflowError(error: unknown): boolean {
  return classifyProviderError(error).kind === 'overflow';
}

/** The provider named by an overflow error, or null when the error is not an overflow (seed 002's API). */
export function getContextOverflowProvider(error: unknown): string | null {
  const c = classifyProviderError(error);
  return c.kind === 'overflow' ? (c.provider ?? null) : null;
}
