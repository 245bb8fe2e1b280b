import {
  counterFor,
  estimateMessagesTokens,
  getContextWindowSize,
  type ChatMessage,
  type TokenCounter,
} from '@ctxledger/context-engine';
import {
  DEFAULT_MAX_SUMMARY_CHARS,
  DEFAULT_SUMMARY_RATIO,
  messageChars,
  summarizeDeterministic,
} from '@ctxledger/context-engine/summarizer';
import { LIMITS } from '@ctxledger/contracts';
import type { LlmProviderName, ProviderName } from '../config/summarizer-service.env';
import type { ProviderSettings, SummarizerSettings } from '../config/summarizer-settings';
import type { LlmClient } from '../providers/llm-client';
import { ConcurrencyLimiter } from './concurrency-limiter';
import { callWithRetries, type CallFailure, type CallFailureKind } from './provider-call';
import { checkSummary, type RejectionCode } from './summary-checks';
import {
  buildGistSystemPrompt,
  buildSystemPrompt,
  buildUserPrompt,
  normalizeSummary,
  renderMessage,
  trimGist,
  type SummaryForm,
} from './summary-prompt';
import { splitTranscript } from './transcript-parts';

/** One summary to write: what `summary.requested` carries, in the engine's types. */
export interface SummaryJob {
  readonly requestId: string;
  readonly messages: readonly ChatMessage[];
  readonly previousSummary?: string;
  readonly maxSummaryTokens: number;
  /** `gist`: a few sentences on a range the engine condensed already (it appends the facts); default `full`. */
  readonly form?: SummaryForm;
  readonly choice?: { readonly provider?: ProviderName; readonly model?: string };
}

export type SummaryOutcome =
  | {
      readonly kind: 'completed';
      readonly summary: string;
      readonly provider: ProviderName;
      readonly model?: string;
      readonly inputTokens?: number;
      readonly outputTokens?: number;
      /** Set when the LLM failed and the offline summarizer answered instead. */
      readonly fallbackFrom?: { readonly provider: ProviderName; readonly reason: string };
    }
  | {
      readonly kind: 'failed';
      readonly reason: string;
      /** Whether the same request may succeed later (published in `summary.failed`). */
      readonly retryable: boolean;
      /**
       * Whether a redelivery of this request should reuse this failure instead of trying again: true when the
       * request itself is the cause (overflow, a rejected summary we paid for), false for the environment
       * (auth, rate limits, outages, a provider not configured).
       */
      readonly reusable: boolean;
      readonly provider: ProviderName;
      readonly model?: string;
    };

/** What the summarizer reports while it works (metrics); no ids in here. */
export interface SummarizerObserver {
  attempt(provider: ProviderName, outcome: CallFailureKind | 'ok', seconds: number): void;
  retry(provider: ProviderName, kind: CallFailureKind): void;
  tokens(provider: ProviderName, input: number, output: number): void;
  split(provider: ProviderName, parts: number): void;
  rejected(provider: ProviderName, code: RejectionCode): void;
  /** A gist past its cap was cut back to its whole sentences within it. */
  trimmed(provider: ProviderName): void;
  fallback(provider: ProviderName, reason: string): void;
  inFlight(provider: ProviderName, delta: number): void;
}

export interface SummarizerDeps {
  readonly settings: SummarizerSettings;
  readonly clients: Readonly<Partial<Record<LlmProviderName, LlmClient>>>;
  readonly observer?: SummarizerObserver;
  readonly redact?: (text: string) => string;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

/** Room in the window for the user prompt's tags and instructions, and a margin for estimation error. */
const PROMPT_FRAMING_TOKENS = 300;
const WINDOW_SAFETY = 0.9;
const MIN_PART_TOKENS = 256;

type LlmResult =
  | { ok: true; summary: string; model: string; inputTokens: number; outputTokens: number }
  | {
      ok: false;
      reason: string;
      retryable: boolean;
      reusable: boolean;
      kind: CallFailureKind | RejectionCode | 'window-too-small';
    };

/**
 * The shortest offline summary tried when the first one (at least 200 characters) is over the token limit: the
 * deterministic summary fills the room it is given, and 200 characters of paths and error text took 65 tokens, over
 * a 64-token limit.
 */
const MIN_OFFLINE_CHARS = 120;

const NOOP_OBSERVER: SummarizerObserver = {
  attempt: () => undefined,
  retry: () => undefined,
  tokens: () => undefined,
  split: () => undefined,
  rejected: () => undefined,
  trimmed: () => undefined,
  fallback: () => undefined,
  inFlight: () => undefined,
};

/**
 * Writes one summary: with the request's provider (or the configured default) through its SDK, or with the
 * offline deterministic summarizer. Splits an input over the model's window at turn boundaries and folds the
 * parts (each merges the summary so far), checks the guarantees, and falls back to the offline summary when
 * configured to. Never throws for provider failures: they come back as a failed outcome.
 */
export class Summarizer {
  private readonly limiters = new Map<LlmProviderName, ConcurrencyLimiter>();
  private readonly observer: SummarizerObserver;
  private readonly redact: (text: string) => string;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly deps: SummarizerDeps) {
    this.observer = deps.observer ?? NOOP_OBSERVER;
    this.redact = deps.redact ?? ((s) => s);
    this.sleep = deps.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = deps.random ?? Math.random;
    for (const [name, settings] of Object.entries(deps.settings.providers)) {
      if (settings) this.limiters.set(name as LlmProviderName, new ConcurrencyLimiter(settings.maxConcurrency));
    }
  }

  /** The provider and model a job goes to. */
  route(job: SummaryJob): { provider: ProviderName; model?: string; settings?: ProviderSettings } {
    const provider = job.choice?.provider ?? this.deps.settings.defaultProvider;
    if (provider === 'offline') return { provider };
    const settings = this.deps.settings.providers[provider];
    return { provider, model: job.choice?.model ?? settings?.defaultModel, settings };
  }

  async summarize(job: SummaryJob): Promise<SummaryOutcome> {
    const { provider, model, settings } = this.route(job);
    if (provider === 'offline') return this.offline(job);
    const client = this.deps.clients[provider];
    if (!settings || !client || !model) {
      return this.fallbackOr(job, provider, model, {
        ok: false,
        kind: 'auth',
        reason: `provider ${provider} is not configured (no API key or base URL)`,
        retryable: false,
        reusable: false,
      });
    }
    const result = await this.withLlm(job, client, settings, model);
    if (result.ok) {
      return {
        kind: 'completed',
        summary: result.summary,
        provider,
        model: result.model,
        inputTokens: result.inputTokens,
        outputTokens: result.outputTokens,
      };
    }
    return this.fallbackOr(job, provider, model, result);
  }

  private fallbackOr(
    job: SummaryJob,
    provider: LlmProviderName,
    model: string | undefined,
    failure: Extract<LlmResult, { ok: false }>,
  ): SummaryOutcome {
    const reason = `${provider}${model ? ` ${model}` : ''}: ${failure.reason}`;
    if (this.deps.settings.fallback === 'offline') {
      this.observer.fallback(provider, failure.kind);
      const offline = this.offline(job);
      if (offline.kind === 'completed') return { ...offline, fallbackFrom: { provider, reason } };
      return {
        ...offline,
        reason: `${reason}; the offline fallback failed too: ${offline.reason}`,
        retryable: failure.retryable,
        reusable: failure.reusable && offline.reusable,
      };
    }
    return {
      kind: 'failed',
      reason,
      retryable: failure.retryable,
      reusable: failure.reusable,
      provider,
      ...(model && { model }),
    };
  }

  /** The deterministic summary, shrunk until it is within the token limit. */
  offline(job: SummaryJob): SummaryOutcome {
    const counter = counterFor({});
    const count = (text: string) => counter.text(text);
    const tokensBefore = tokensReplaced(job, counter);
    const inputChars = job.messages.reduce((s, m) => s + messageChars(m), 0) + (job.previousSummary?.length ?? 0);
    let maxChars = Math.max(
      200,
      Math.min(
        LIMITS.maxSummaryChars,
        job.maxSummaryTokens * 3,
        DEFAULT_MAX_SUMMARY_CHARS,
        Math.floor(inputChars * DEFAULT_SUMMARY_RATIO),
      ),
    );
    let text = '';
    for (let i = 0; i < 5; i++) {
      text = summarizeDeterministic({ messages: job.messages, previousSummary: job.previousSummary, maxChars }).text;
      const tokens = count(text);
      if (tokens <= job.maxSummaryTokens || maxChars <= MIN_OFFLINE_CHARS) break;
      maxChars = Math.max(MIN_OFFLINE_CHARS, Math.floor((maxChars * job.maxSummaryTokens * 0.95) / tokens));
    }
    const check = checkSummary(text, { maxSummaryTokens: job.maxSummaryTokens, tokensBefore, final: true }, count);
    if (!check.ok) {
      this.observer.rejected('offline', check.code);
      return {
        kind: 'failed',
        reason: `offline: summary rejected: ${check.reason}`,
        retryable: false,
        reusable: true,
        provider: 'offline',
      };
    }
    return { kind: 'completed', summary: text, provider: 'offline', outputTokens: check.tokens };
  }

  private async withLlm(
    job: SummaryJob,
    client: LlmClient,
    settings: ProviderSettings,
    model: string,
  ): Promise<LlmResult> {
    const provider = settings.provider;
    const counter = counterFor({ provider, model });
    const count = (text: string) => counter.text(text);
    const tokensBefore = tokensReplaced(job, counter);
    const window = settings.contextWindow ?? getContextWindowSize(provider, model);
    const maxOutputTokens = Math.max(
      64,
      Math.min(job.maxSummaryTokens + this.deps.settings.outputHeadroomTokens, Math.floor(window / 2)),
    );
    const form = job.form ?? 'full';
    const system =
      form === 'gist' ? buildGistSystemPrompt(job.maxSummaryTokens) : buildSystemPrompt(job.maxSummaryTokens);
    const available = Math.floor(window * WINDOW_SAFETY) - maxOutputTokens - count(system) - PROMPT_FRAMING_TOKENS;

    const rendered = job.messages.map((m, i) => renderMessage(m, i + 1));
    const transcriptTokens = rendered.reduce((s, r) => s + count(r), 0);
    const previousTokens = job.previousSummary ? count(job.previousSummary) : 0;
    let parts: readonly (readonly string[])[];
    if (transcriptTokens + previousTokens <= available) {
      parts = [rendered];
    } else {
      // Every part after the first carries the summary so far (at most maxSummaryTokens) instead of the previous one.
      const budget = available - Math.max(previousTokens, job.maxSummaryTokens);
      if (budget < MIN_PART_TOKENS) {
        return {
          ok: false,
          kind: 'window-too-small',
          reason: `the model's window (${window} tokens) leaves ${budget} tokens for the transcript after the prompt, the previous summary and a ${maxOutputTokens}-token answer`,
          retryable: false,
          reusable: false,
        };
      }
      parts = splitTranscript(job.messages, budget, count).parts;
      this.observer.split(provider, parts.length);
    }

    let summary = job.previousSummary;
    let inputTokens = 0;
    let outputTokens = 0;
    let answeredBy = model;
    for (let i = 0; i < parts.length; i++) {
      const prompt = buildUserPrompt({ rendered: parts[i], partIndex: i, partCount: parts.length }, summary, form);
      const where = parts.length > 1 ? ` (part ${i + 1} of ${parts.length})` : '';
      const limiter = this.limiters.get(provider) ?? new ConcurrencyLimiter(1);
      const call = await callWithRetries(
        (signal) => client.complete({ model, system, prompt, maxOutputTokens, signal }),
        {
          retry: this.deps.settings.retry,
          timeoutMs: this.deps.settings.timeoutMs,
          redact: this.redact,
          sleep: this.sleep,
          random: this.random,
          limit: (task) =>
            limiter.run(async () => {
              this.observer.inFlight(provider, 1);
              try {
                return await task();
              } finally {
                this.observer.inFlight(provider, -1);
              }
            }),
          onAttempt: (outcome, seconds) => this.observer.attempt(provider, outcome, seconds),
          onRetry: (failure) => this.observer.retry(provider, failure.kind),
        },
      );
      if (!call.ok) return fromCallFailure(call.failure, where, call.attempts);
      const completion = call.value;
      const input = completion.inputTokens ?? count(system) + count(prompt);
      const output = completion.outputTokens ?? count(completion.text);
      this.observer.tokens(provider, input, output);
      inputTokens += input;
      outputTokens += output;
      answeredBy = completion.model;

      let text = normalizeSummary(completion.text, form);
      let truncated = completion.truncated;
      // A gist past its cap keeps its whole sentences within it (the engine appends the facts it leaves out).
      if (form === 'gist' && (truncated || count(text) > job.maxSummaryTokens)) {
        const trimmed = trimGist(text, job.maxSummaryTokens, count);
        if (trimmed !== undefined) {
          this.observer.trimmed(provider);
          text = trimmed;
          truncated = false;
        }
      }
      const final = i === parts.length - 1;
      const check = checkSummary(
        text,
        { maxSummaryTokens: job.maxSummaryTokens, tokensBefore, final },
        count,
        truncated,
      );
      if (!check.ok) {
        this.observer.rejected(provider, check.code);
        return {
          ok: false,
          kind: check.code,
          reason: `summary rejected${where}: ${check.reason}`,
          retryable: false,
          reusable: true,
        };
      }
      summary = text;
    }
    return { ok: true, summary: summary ?? '', model: answeredBy, inputTokens, outputTokens };
  }
}

/** Tokens of what the summary replaces: the request's messages and the previous summary it absorbs. */
export function tokensReplaced(job: SummaryJob, counter: TokenCounter): number {
  return estimateMessagesTokens(job.messages, counter) + (job.previousSummary ? counter.text(job.previousSummary) : 0);
}

function fromCallFailure(failure: CallFailure, where: string, attempts: number): Extract<LlmResult, { ok: false }> {
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  const sizes =
    failure.kind === 'overflow' && (failure.actualTokens !== undefined || failure.limitTokens !== undefined)
      ? ` [input ${failure.actualTokens ?? '?'} tokens, limit ${failure.limitTokens ?? '?'}]`
      : '';
  return {
    ok: false,
    kind: failure.kind,
    reason: `${failure.kind}${failure.status ? ` (HTTP ${failure.status})` : ''}${where}${tries}${sizes}: ${failure.message}`,
    retryable: failure.retryable,
    // An overflow or a refusal is a property of the input: the same request would get the same answer.
    reusable: failure.kind === 'overflow' || (failure.kind === 'malformed' && !failure.retryable),
  };
}
