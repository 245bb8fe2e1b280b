import Anthropic from '@anthropic-ai/sdk';
import type { ProviderSettings } from '../config/summarizer-settings';
import { MalformedResponseError, type Completion, type CompletionRequest, type LlmClient } from './llm-client';
import { rethrowMalformed } from './openai-compatible.client';

/** Anthropic's Messages API through the official SDK; the SDK's own retries are off. */
export class AnthropicClient implements LlmClient {
  readonly provider = 'anthropic' as const;
  private readonly client: Anthropic;

  constructor(settings: ProviderSettings) {
    this.client = new Anthropic({
      apiKey: settings.apiKey,
      ...(settings.baseUrl !== undefined && { baseURL: settings.baseUrl }),
      maxRetries: 0,
      // Our own timer bounds each call (SUMMARIZER_TIMEOUT_MS); an explicit SDK timeout also keeps the SDK from
      // refusing large non-streaming max_tokens values on its own estimate of the duration.
      timeout: 600_000,
    });
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    const response = await this.client.messages
      .create(
        {
          model: request.model,
          system: request.system,
          max_tokens: request.maxOutputTokens,
          messages: [{ role: 'user', content: request.prompt }],
        },
        { signal: request.signal },
      )
      .catch(rethrowMalformed);
    const blocks = Array.isArray(response?.content) ? response.content : [];
    const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    if (text.trim() === '') {
      if (response?.stop_reason === 'refusal') throw new MalformedResponseError('the model refused to answer', false);
      throw new MalformedResponseError('the response has no text block');
    }
    return {
      text,
      truncated: response.stop_reason === 'max_tokens',
      inputTokens: response.usage?.input_tokens,
      outputTokens: response.usage?.output_tokens,
      model: response.model || request.model,
    };
  }
}
