import { getAvailableInputTokens, getContextWindowSize, getOutputReserve } from '.';

describe('context-window registry', () => {
  it("has seed 002's table", () => {
    expect(getContextWindowSize('anthropic', 'claude-3-5-haiku-20241022')).toBe(200_000);
    expect(getContextWindowSize('openai', 'gpt-4')).toBe(8192);
    expect(getContextWindowSize('openai', 'gpt-4.1-mini')).toBe(1_047_576);
    expect(getContextWindowSize('google-ai', 'gemini-1.5-pro')).toBe(2_097_152);
    expect(getContextWindowSize('bedrock', 'amazon.nova-pro-v1:0')).toBe(300_000);
    expect(getContextWindowSize('mistral', 'mistral-medium-latest')).toBe(32_000);
    expect(getContextWindowSize('huggingface')).toBe(32_000);
    expect(getContextWindowSize('nobody', 'unknown-model')).toBe(128_000);
  });

  it('matches dated model names by the longest prefix', () => {
    expect(getContextWindowSize('anthropic', 'claude-sonnet-4-20250514-v2')).toBe(200_000);
    expect(getContextWindowSize('openai', 'gpt-4o-mini-2024-07-18')).toBe(128_000); // not gpt-4's 8 192
    expect(getContextWindowSize('openai', 'gpt-4-0613')).toBe(8192);
    expect(getContextWindowSize('openai', 'gpt-4.1-2025-04-14')).toBe(1_047_576);
    expect(getContextWindowSize('openai', 'openai/gpt-4o')).toBe(128_000);
    expect(getContextWindowSize('anthropic', 'claude-opus-4-5-20251101')).toBe(200_000);
  });

  it('falls back to the provider default, and finds a model under an unknown provider', () => {
    expect(getContextWindowSize('openai', 'brand-new-model')).toBe(128_000);
    expect(getContextWindowSize('litellm-proxy', 'gemini-2.5-pro')).toBe(1_048_576);
  });

  it('applies per-session overrides first (exact, prefix, provider)', () => {
    expect(getContextWindowSize('ollama', 'llama3.1:8b', { 'llama3.1': 131_072 })).toBe(131_072);
    expect(getContextWindowSize('ollama', 'qwen', { ollama: 32_768 })).toBe(32_768);
    expect(getContextWindowSize('openai', 'gpt-4o', { 'openai/gpt-4o': 64_000 })).toBe(64_000);
  });

  it("reserves output with seed 002's rule when max tokens is not given", () => {
    expect(getOutputReserve(200_000)).toBe(64_000);
    expect(getOutputReserve(100_000)).toBe(35_000);
    expect(getOutputReserve(200_000, 8000)).toBe(8000);
    expect(getAvailableInputTokens(128_000)).toBe(128_000 - 44_800);
  });
});
