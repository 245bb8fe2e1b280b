import type { LlmProviderName } from '../config/summarizer-service.env';

/** One call to a chat model: a system prompt, one user message, a cap on the output. */
export interface CompletionRequest {
  readonly model: string;
  readonly system: string;
  readonly prompt: string;
  readonly maxOutputTokens: number;
  /** Aborts the HTTP request (our per-attempt timeout). */
  readonly signal: AbortSignal;
}

export interface Completion {
  readonly text: string;
  /** The output stopped at the token cap (finish reason length / max_tokens / MAX_TOKENS). */
  readonly truncated: boolean;
  /** As the provider reported them, when it did. */
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** The model that answered, as the provider named it. */
  readonly model: string;
}

/** The port of an LLM provider. Adapters call the provider's official SDK and throw its errors unchanged. */
export interface LlmClient {
  readonly provider: LlmProviderName;
  complete(request: CompletionRequest): Promise<Completion>;
}

/**
 * The provider answered 200 but with something we cannot use (not JSON, no text, blocked). Retryable unless
 * the provider refused the content (a safety block gives the same answer every time).
 */
export class MalformedResponseError extends Error {
  constructor(
    message: string,
    readonly retryable = true,
  ) {
    super(message);
    this.name = 'MalformedResponseError';
  }
}

/** Raised by our own timer (not the SDK's), so that every provider times out the same way. */
export class ProviderTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms (timeout)`);
    this.name = 'ProviderTimeoutError';
  }
}
