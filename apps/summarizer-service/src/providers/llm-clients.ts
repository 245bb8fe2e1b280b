import type { LlmProviderName } from '../config/summarizer-service.env';
import type { ProviderSettings } from '../config/summarizer-settings';
import { AnthropicClient } from './anthropic.client';
import { GoogleGeminiClient } from './google-gemini.client';
import type { LlmClient } from './llm-client';
import { OpenAiCompatibleClient } from './openai-compatible.client';

/** Builds the SDK client of a configured provider. */
export function createLlmClient(settings: ProviderSettings): LlmClient {
  const factories: Record<LlmProviderName, (s: ProviderSettings) => LlmClient> = {
    openai: (s) => new OpenAiCompatibleClient(s),
    anthropic: (s) => new AnthropicClient(s),
    google: (s) => new GoogleGeminiClient(s),
  };
  return factories[settings.provider](settings);
}
