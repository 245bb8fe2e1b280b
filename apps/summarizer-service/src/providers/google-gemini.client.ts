import { GoogleGenAI } from '@google/genai';
import type { ProviderSettings } from '../config/summarizer-settings';
import { MalformedResponseError, type Completion, type CompletionRequest, type LlmClient } from './llm-client';
import { rethrowMalformed } from './openai-compatible.client';

/** Gemini's generateContent through the official `@google/genai` SDK (its retries are off unless configured). */
export class GoogleGeminiClient implements LlmClient {
  readonly provider = 'google' as const;
  private readonly client: GoogleGenAI;

  constructor(settings: ProviderSettings) {
    this.client = new GoogleGenAI({
      apiKey: settings.apiKey,
      httpOptions: {
        ...(settings.baseUrl !== undefined && { baseUrl: settings.baseUrl }),
        // The platform's fetch: our per-attempt timeout (≤ 300 s, Undici's own header timeout) bounds each call,
        // so the SDK's Undici dispatcher is not needed — and it is unreachable inside Jest's VM sandbox.
        fetch: (input, init) => fetch(input, init),
      },
    });
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    const response = await this.client.models
      .generateContent({
        model: request.model,
        contents: [{ role: 'user', parts: [{ text: request.prompt }] }],
        config: {
          systemInstruction: request.system,
          maxOutputTokens: request.maxOutputTokens,
          abortSignal: request.signal,
        },
      })
      .catch(rethrowMalformed);
    const candidate = response?.candidates?.[0];
    const text = (candidate?.content?.parts ?? [])
      .flatMap((p) => (typeof p.text === 'string' && !p.thought ? [p.text] : []))
      .join('');
    if (text.trim() === '') {
      const blocked = response?.promptFeedback?.blockReason;
      if (blocked) throw new MalformedResponseError(`the prompt was blocked (${blocked})`, false);
      if (candidate?.finishReason === 'SAFETY')
        throw new MalformedResponseError('the answer was blocked (SAFETY)', false);
      throw new MalformedResponseError('the response has no text part');
    }
    return {
      text,
      truncated: candidate?.finishReason === 'MAX_TOKENS',
      inputTokens: response.usageMetadata?.promptTokenCount,
      outputTokens: response.usageMetadata?.candidatesTokenCount,
      model: response.modelVersion || request.model,
    };
  }
}
