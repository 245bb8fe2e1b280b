import { Logger } from '@nestjs/common';
import type { LlmProviderName } from '../config/summarizer-service.env';
import type { ProviderSettings } from '../config/summarizer-settings';
import { AnthropicClient } from './anthropic.client';
import { GoogleGeminiClient } from './google-gemini.client';
import type { LlmClient } from './llm-client';
import { LocalLlamaClient } from './local-llama.client';
import { OpenAiCompatibleClient } from './openai-compatible.client';

/** Builds the SDK client of a configured provider. */
export function createLlmClient(settings: ProviderSettings): LlmClient {
  const factories: Record<LlmProviderName, (s: ProviderSettings) => LlmClient> = {
    openai: (s) => new OpenAiCompatibleClient(s),
    anthropic: (s) => new AnthropicClient(s),
    google: (s) => new GoogleGeminiClient(s),
    local: (s) => createLocalClient(s),
  };
  return factories[settings.provider](settings);
}

/** The local model starts loading at once (at boot); the log says when it is ready, or why it is not. */
function createLocalClient(settings: ProviderSettings): LocalLlamaClient {
  const logger = new Logger('LocalModel');
  const client = new LocalLlamaClient(settings, { log: (message) => logger.warn(`llama.cpp: ${message}`) });
  client.loaded().then(
    (info) =>
      logger.log(
        `${settings.defaultModel} loaded from ${settings.local?.modelPath} in ${info.loadSeconds.toFixed(1)} s (${info.threads} threads, context ${info.contextSize} tokens × ${info.sequences})`,
      ),
    (error: unknown) =>
      logger.error(
        `${settings.defaultModel} could not be loaded from ${settings.local?.modelPath}: ${error instanceof Error ? error.message : String(error)} (its requests fall back as configured by SUMMARIZER_FALLBACK)`,
      ),
  );
  return client;
}
