import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { Logger } from '@nestjs/common';
import type { LlmProviderName, ProviderName, SummarizerServiceEnv } from './summarizer-service.env';

/** How to reach one LLM provider. The key stays in here and in the SDK client; it is never logged. */
export interface ProviderSettings {
  readonly provider: LlmProviderName;
  readonly apiKey?: string;
  readonly baseUrl?: string;
  readonly defaultModel: string;
  /** Overrides the engine's context-window table (local servers often run with a smaller n_ctx). */
  readonly contextWindow?: number;
  readonly maxConcurrency: number;
  /** OpenAI-compatible only. */
  readonly maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  /** Local (in-process) only. */
  readonly local?: LocalModelSettings;
}

/** A GGUF model run in-process on the CPU. */
export interface LocalModelSettings {
  readonly modelPath: string;
  /** Always explicit: llama.cpp left to choose used about one core of two. */
  readonly threads: number;
  /** Tokens of each generation's context (prompt and answer). */
  readonly contextSize: number;
}

export interface RetrySettings {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export interface SummarizerSettings {
  readonly defaultProvider: ProviderName;
  readonly fallback: 'offline' | 'none';
  /** Only the providers that have what they need (a key, or a base URL for OpenAI-compatible servers). */
  readonly providers: Readonly<Partial<Record<LlmProviderName, ProviderSettings>>>;
  readonly timeoutMs: number;
  readonly retry: RetrySettings;
  readonly outputHeadroomTokens: number;
}

/**
 * The typed view of the validated environment (built once, in the composition root). A local provider whose
 * model file is missing is left out, and a default of `local` then falls back to `offline`; `warn` says so.
 */
export function summarizerSettings(
  env: SummarizerServiceEnv,
  warn: (message: string) => void = (message) => new Logger('Summarizer').warn(message),
): SummarizerSettings {
  const concurrency = (own: number | undefined) => own ?? env.SUMMARIZER_MAX_CONCURRENCY;
  const providers: Partial<Record<LlmProviderName, ProviderSettings>> = {};
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    providers.openai = {
      provider: 'openai',
      apiKey: env.OPENAI_API_KEY,
      baseUrl: env.OPENAI_BASE_URL,
      defaultModel: env.OPENAI_MODEL,
      contextWindow: env.OPENAI_CONTEXT_WINDOW,
      maxConcurrency: concurrency(env.OPENAI_MAX_CONCURRENCY),
      maxTokensParam:
        env.OPENAI_MAX_TOKENS_PARAM ??
        (!env.OPENAI_BASE_URL || /api\.openai\.com/.test(env.OPENAI_BASE_URL) ? 'max_completion_tokens' : 'max_tokens'),
    };
  }
  if (env.ANTHROPIC_API_KEY) {
    providers.anthropic = {
      provider: 'anthropic',
      apiKey: env.ANTHROPIC_API_KEY,
      baseUrl: env.ANTHROPIC_BASE_URL,
      defaultModel: env.ANTHROPIC_MODEL,
      contextWindow: env.ANTHROPIC_CONTEXT_WINDOW,
      maxConcurrency: concurrency(env.ANTHROPIC_MAX_CONCURRENCY),
    };
  }
  const googleKey = env.GEMINI_API_KEY || env.GOOGLE_API_KEY;
  if (googleKey) {
    providers.google = {
      provider: 'google',
      apiKey: googleKey,
      baseUrl: env.GEMINI_BASE_URL,
      defaultModel: env.GEMINI_MODEL,
      contextWindow: env.GEMINI_CONTEXT_WINDOW,
      maxConcurrency: concurrency(env.GEMINI_MAX_CONCURRENCY),
    };
  }
  const local = localModel(env);
  if (local.settings) providers.local = local.settings;
  let defaultProvider = env.SUMMARIZER_PROVIDER;
  if (defaultProvider === 'local' && !providers.local) {
    warn(`SUMMARIZER_PROVIDER=local but ${local.problem}: staying on the offline summarizer`);
    defaultProvider = 'offline';
  } else if (local.problem && env.LOCAL_MODEL_PATH) {
    warn(`the local provider is off: ${local.problem}`);
  }
  return {
    defaultProvider,
    fallback: env.SUMMARIZER_FALLBACK,
    providers,
    timeoutMs: env.SUMMARIZER_TIMEOUT_MS,
    retry: {
      maxAttempts: env.SUMMARIZER_MAX_ATTEMPTS,
      baseDelayMs: env.SUMMARIZER_RETRY_BASE_MS,
      maxDelayMs: env.SUMMARIZER_RETRY_MAX_MS,
    },
    outputHeadroomTokens: env.SUMMARIZER_OUTPUT_HEADROOM_TOKENS,
  };
}

/** The boot log line of the providers: names, models, base URLs and limits, never a key. */
export function describeProviders(settings: SummarizerSettings): string {
  const llms = Object.values(settings.providers)
    .map(
      (p) =>
        `${p!.provider} (${p!.defaultModel}${p!.baseUrl ? ` at ${withoutPassword(p!.baseUrl)}` : ''}, ≤${p!.maxConcurrency} calls)`,
    )
    .join(', ');
  return `default provider ${settings.defaultProvider}; fallback ${settings.fallback}; LLM providers: ${llms || 'none (offline only)'}`;
}

/** A URL with the password of its `user:password@` part masked. */
const withoutPassword = (url: string) => url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@]*):[^/@]*@/i, '$1:***@');

/** Every secret of the settings, for redaction of error texts. */
export function secretsOf(settings: SummarizerSettings): string[] {
  return Object.values(settings.providers)
    .map((p) => p?.apiKey)
    .filter((k): k is string => typeof k === 'string' && k.length >= 4);
}

/** The local provider's settings when its model file exists, or why not. */
function localModel(env: SummarizerServiceEnv): { settings?: ProviderSettings; problem?: string } {
  const path = env.LOCAL_MODEL_PATH;
  if (!path) return { problem: 'LOCAL_MODEL_PATH is not set (the path of a GGUF model file)' };
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) return { problem: `the model file LOCAL_MODEL_PATH=${path} does not exist` };
  const contextSize = env.LOCAL_CONTEXT_SIZE ?? 4096;
  return {
    settings: {
      provider: 'local',
      defaultModel: env.LOCAL_MODEL_NAME ?? basename(path).replace(/\.gguf$/i, ''),
      contextWindow: contextSize,
      maxConcurrency: env.LOCAL_MAX_CONCURRENCY ?? 1,
      local: { modelPath: path, threads: env.LOCAL_THREADS ?? availableParallelism(), contextSize },
    },
  };
}
