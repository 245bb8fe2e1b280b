import type { ChatMessage } from '../model/message';
import { createTokenCounter, tokenProfileFor, type TokenCounter, type Tokenizer } from './estimate';
import { createTiktokenTokenizer, openAiEncodingFor } from './tiktoken';

export * from './estimate';
export * from './segments';
export { createTiktokenTokenizer, openAiEncodingFor } from './tiktoken';

const OPENAI_PROVIDERS = new Set(['openai', 'azure']);

export interface CounterOptions {
  readonly provider?: string;
  readonly model?: string;
  /** 'exact' uses js-tiktoken for OpenAI providers (falls back to the estimate elsewhere); a Tokenizer is used as given. */
  readonly tokenizer?: 'estimate' | 'exact' | Tokenizer;
}

export function counterFor(options: CounterOptions = {}): TokenCounter {
  const profile = tokenProfileFor(options.provider);
  const tk = options.tokenizer;
  if (tk && typeof tk === 'object') return createTokenCounter(profile, tk);
  if (tk === 'exact' && OPENAI_PROVIDERS.has((options.provider ?? '').toLowerCase())) {
    // OpenAI's documented framing: 3 tokens per message, 3 to prime the reply; no safety margin needed.
    return createTokenCounter(
      { ...profile, perMessage: 3, perConversation: 3, safetyMargin: 1 },
      createTiktokenTokenizer(openAiEncodingFor(options.model)),
    );
  }
  return createTokenCounter(profile);
}

export const estimateMessageTokens = (message: ChatMessage, counter: TokenCounter): number => counter.message(message);
