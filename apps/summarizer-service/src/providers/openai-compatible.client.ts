import OpenAI from 'openai';
import type { ProviderSettings } from '../config/summarizer-settings';
import { MalformedResponseError, type Completion, type CompletionRequest, type LlmClient } from './llm-client';

/**
 * OpenAI chat completions through the official SDK, at any OpenAI-compatible base URL: OpenAI itself, vLLM,
 * Ollama (`/v1`), LiteLLM, llama.cpp server. The SDK's own retries are off: the caller's policy retries.
 */
export class OpenAiCompatibleClient implements LlmClient {
  readonly provider = 'openai' as const;
  private readonly client: OpenAI;
  private readonly maxTokensParam: 'max_tokens' | 'max_completion_tokens';

  constructor(settings: ProviderSettings) {
    this.client = new OpenAI({
      // Local servers need no key, but the SDK insists on one.
      apiKey: settings.apiKey ?? 'no-key',
      ...(settings.baseUrl !== undefined && { baseURL: settings.baseUrl }),
      maxRetries: 0,
    });
    this.maxTokensParam = settings.maxTokensParam ?? 'max_completion_tokens';
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    const response = await this.client.chat.completions
      .create(
        {
          model: request.model,
          messages: [
            { role: 'system', content: request.system },
            { role: 'user', content: request.prompt },
          ],
          [this.maxTokensParam]: request.maxOutputTokens,
        },
        { signal: request.signal },
      )
      .catch(rethrowMalformed);
    const choice = response?.choices?.[0];
    const text = choice?.message?.content;
    if (typeof text !== 'string' || text.trim() === '') {
      const refusal = choice?.message?.refusal;
      if (refusal) throw new MalformedResponseError(`the model refused: ${refusal.slice(0, 300)}`, false);
      throw new MalformedResponseError('the response has no text (choices[0].message.content)');
    }
    return {
      text,
      truncated: choice?.finish_reason === 'length',
      inputTokens: response.usage?.prompt_tokens,
      outputTokens: response.usage?.completion_tokens,
      model: response.model || request.model,
    };
  }
}

/**
 * A 200 whose body is not JSON surfaces as a SyntaxError, possibly wrapped by the SDK (and from another realm,
 * so `instanceof` is not enough). Rethrown as malformed; anything else unchanged.
 */
export function rethrowMalformed(error: unknown): never {
  if (isJsonSyntaxError(error)) {
    throw new MalformedResponseError(`the response is not valid JSON: ${(error as Error).message}`);
  }
  throw error;
}

function isJsonSyntaxError(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) && !(typeof error === 'object' && error !== null && 'message' in error)) return false;
  const e = error as Error & { status?: unknown; cause?: unknown };
  if (e.status !== undefined) return false; // an HTTP error, classified elsewhere
  if (e instanceof SyntaxError || e.name === 'SyntaxError' || /^SyntaxError\b/.test(String(e.message))) return true;
  return depth < 3 && e.cause !== undefined && isJsonSyntaxError(e.cause, depth + 1);
}
