import { Secret } from '@ctxledger/config';
import { BaseServiceEnv } from '@ctxledger/platform';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateBy,
  type ValidationArguments,
} from 'class-validator';

export const PROVIDERS = ['offline', 'openai', 'anthropic', 'google', 'local'] as const;
export type ProviderName = (typeof PROVIDERS)[number];
export type LlmProviderName = Exclude<ProviderName, 'offline'>;
/** The providers reached over HTTP (all but the in-process `local`). */
export type RemoteProviderName = Exclude<LlmProviderName, 'local'>;

const URL_PATTERN = /^https?:\/\/[^\s]+$/;
/** An API key is one token: a space or a new line in it is a paste gone wrong (an empty value means unset). */
const API_KEY_PATTERN = /^\S*$/;
const API_KEY_MESSAGE = 'must be one token, without spaces or new lines';

/** The default provider must be usable: a key (or, for OpenAI-compatible servers, a base URL) is set. */
function ProviderIsConfigured(): PropertyDecorator {
  return ValidateBy({
    name: 'providerIsConfigured',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        const env = args?.object as SummarizerServiceEnv;
        if (value === 'openai') return Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
        if (value === 'anthropic') return Boolean(env.ANTHROPIC_API_KEY);
        if (value === 'google') return Boolean(env.GEMINI_API_KEY || env.GOOGLE_API_KEY);
        // local: a missing model file is not an error; the service says so at boot and stays offline.
        return true;
      },
      defaultMessage: (args?: ValidationArguments) => {
        const needs: Record<string, string> = {
          openai: 'OPENAI_API_KEY or OPENAI_BASE_URL',
          anthropic: 'ANTHROPIC_API_KEY',
          google: 'GEMINI_API_KEY (or GOOGLE_API_KEY)',
        };
        return `provider ${String(args?.value)} needs ${needs[String(args?.value)] ?? 'its settings'}`;
      },
    },
  });
}

/**
 * Environment of the summarizer-service (validated at boot). API keys are secrets (`@Secret`): a validation
 * message names the variable, never its value, and each can be given as a file (`OPENAI_API_KEY_FILE`, …).
 */
export class SummarizerServiceEnv extends BaseServiceEnv {
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  override PORT: number = 3002;

  /** Provider of requests that do not name one. `offline`: the deterministic summarizer, no key needed. */
  @IsIn(PROVIDERS)
  @ProviderIsConfigured()
  SUMMARIZER_PROVIDER: ProviderName = 'offline';

  /** When the LLM fails or its summary is rejected: `offline` answers with the deterministic summary; `none` publishes `summary.failed`. */
  @IsIn(['offline', 'none'])
  SUMMARIZER_FALLBACK: 'offline' | 'none' = 'offline';

  @IsOptional()
  @Matches(/^[a-zA-Z0-9._-]{1,200}$/, { message: 'must be 1-200 of [a-zA-Z0-9._-]' })
  SUMMARIZER_GROUP_ID?: string;

  /** Partitions of the request topic handled at once (each partition is sequential). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(64)
  SUMMARIZER_PARTITIONS_CONCURRENTLY: number = 6;

  /** Time limit of one provider call (one attempt). */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(300_000)
  SUMMARIZER_TIMEOUT_MS: number = 60_000;

  /** Attempts per provider call, the first included (retries only on rate limits, 5xx, network, timeouts). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(20)
  SUMMARIZER_MAX_ATTEMPTS: number = 4;

  /** Backoff: base × 2^(attempt−1) with jitter, capped; a longer retry-after than the cap gives up. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(600_000)
  SUMMARIZER_RETRY_BASE_MS: number = 1000;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(600_000)
  SUMMARIZER_RETRY_MAX_MS: number = 30_000;

  /** Concurrent calls per provider (each provider has its own limit; the provider's own variable wins). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  SUMMARIZER_MAX_CONCURRENCY: number = 4;

  /** Output tokens allowed beyond the summary's limit (room for reasoning/thinking tokens). */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(100_000)
  SUMMARIZER_OUTPUT_HEADROOM_TOKENS: number = 1024;

  // ----- OpenAI and every OpenAI-compatible server (vLLM, Ollama, LiteLLM, llama.cpp) -----
  @Secret({ file: true })
  @IsOptional()
  @Matches(API_KEY_PATTERN, { message: API_KEY_MESSAGE })
  OPENAI_API_KEY?: string;

  @IsOptional()
  @Matches(URL_PATTERN, { message: 'must be an http(s) URL' })
  OPENAI_BASE_URL?: string;

  @IsString()
  OPENAI_MODEL: string = 'gpt-4o-mini';

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  OPENAI_CONTEXT_WINDOW?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  OPENAI_MAX_CONCURRENCY?: number;

  /** `max_completion_tokens` (OpenAI's current name) by default on api.openai.com, `max_tokens` on other servers. */
  @IsOptional()
  @IsIn(['max_tokens', 'max_completion_tokens'])
  OPENAI_MAX_TOKENS_PARAM?: 'max_tokens' | 'max_completion_tokens';

  // ----- Anthropic -----
  @Secret({ file: true })
  @IsOptional()
  @Matches(API_KEY_PATTERN, { message: API_KEY_MESSAGE })
  ANTHROPIC_API_KEY?: string;

  @IsOptional()
  @Matches(URL_PATTERN, { message: 'must be an http(s) URL' })
  ANTHROPIC_BASE_URL?: string;

  @IsString()
  ANTHROPIC_MODEL: string = 'claude-haiku-4-5';

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  ANTHROPIC_CONTEXT_WINDOW?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  ANTHROPIC_MAX_CONCURRENCY?: number;

  // ----- Google Gemini (the Gemini API; GOOGLE_API_KEY is accepted as an alias) -----
  @Secret({ file: true })
  @IsOptional()
  @Matches(API_KEY_PATTERN, { message: API_KEY_MESSAGE })
  GEMINI_API_KEY?: string;

  @Secret({ file: true })
  @IsOptional()
  @Matches(API_KEY_PATTERN, { message: API_KEY_MESSAGE })
  GOOGLE_API_KEY?: string;

  @IsOptional()
  @Matches(URL_PATTERN, { message: 'must be an http(s) URL' })
  GEMINI_BASE_URL?: string;

  @IsString()
  GEMINI_MODEL: string = 'gemini-2.5-flash';

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  GEMINI_CONTEXT_WINDOW?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  GEMINI_MAX_CONCURRENCY?: number;

  // ----- local: a GGUF model in-process through node-llama-cpp (llama.cpp, CPU) -----
  /** The GGUF model file. Without it (unset or missing) the service logs so at boot and stays offline. */
  @IsOptional()
  @IsString()
  LOCAL_MODEL_PATH?: string;

  /** The model name in results and metrics; the file's name without `.gguf` by default. */
  @IsOptional()
  @Matches(/^[a-zA-Z0-9._:-]{1,200}$/, { message: 'must be 1-200 of [a-zA-Z0-9._:-]' })
  LOCAL_MODEL_NAME?: string;

  /** CPU threads of the model; the machine's available cores by default (always passed explicitly). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(256)
  LOCAL_THREADS?: number;

  /** Context size in tokens of each concurrent generation (prompt and answer together). */
  @Type(() => Number)
  @IsInt()
  @Min(512)
  @Max(131_072)
  LOCAL_CONTEXT_SIZE: number = 4096;

  /** Concurrent generations (each has its own context of LOCAL_CONTEXT_SIZE). SUMMARIZER_MAX_CONCURRENCY does not apply. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(16)
  LOCAL_MAX_CONCURRENCY: number = 1;
}
