import { writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateEnv } from '@ctxledger/platform';
import { SummarizerServiceEnv } from './summarizer-service.env';
import { secretsOf, summarizerSettings } from './summarizer-settings';

const validate = validateEnv(SummarizerServiceEnv);

describe('summarizer settings', () => {
  it('runs offline with no key at all', () => {
    const settings = summarizerSettings(validate({}));
    expect(settings.defaultProvider).toBe('offline');
    expect(settings.fallback).toBe('offline');
    expect(settings.providers).toEqual({});
  });

  it('refuses a default provider without its key, naming the variable and never echoing a key', () => {
    expect(() => validate({ SUMMARIZER_PROVIDER: 'anthropic', OPENAI_API_KEY: 'sk-secret-value-1' })).toThrow(
      /SUMMARIZER_PROVIDER: provider anthropic needs ANTHROPIC_API_KEY/,
    );
    try {
      validate({ SUMMARIZER_PROVIDER: 'google', OPENAI_API_KEY: 'sk-secret-value-1' });
    } catch (error) {
      expect((error as Error).message).not.toContain('sk-secret-value-1');
    }
  });

  it('configures each provider that has what it needs', () => {
    const settings = summarizerSettings(
      validate({
        SUMMARIZER_PROVIDER: 'openai',
        OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
        OPENAI_MODEL: 'qwen2.5:7b',
        OPENAI_CONTEXT_WINDOW: '32768',
        ANTHROPIC_API_KEY: 'sk-ant-1234',
        ANTHROPIC_MAX_CONCURRENCY: '2',
        GOOGLE_API_KEY: 'AIza-1234',
        SUMMARIZER_MAX_CONCURRENCY: '8',
      }),
    );
    expect(settings.providers.openai).toMatchObject({
      baseUrl: 'http://127.0.0.1:11434/v1',
      defaultModel: 'qwen2.5:7b',
      contextWindow: 32768,
      maxConcurrency: 8,
      maxTokensParam: 'max_tokens',
    });
    expect(settings.providers.anthropic).toMatchObject({
      apiKey: 'sk-ant-1234',
      maxConcurrency: 2,
      defaultModel: 'claude-haiku-4-5',
    });
    expect(settings.providers.google).toMatchObject({ apiKey: 'AIza-1234', defaultModel: 'gemini-2.5-flash' });
    expect(secretsOf(settings).sort()).toEqual(['AIza-1234', 'sk-ant-1234']);
  });

  it("uses OpenAI's max_completion_tokens on api.openai.com", () => {
    expect(summarizerSettings(validate({ OPENAI_API_KEY: 'sk-1' })).providers.openai?.maxTokensParam).toBe(
      'max_completion_tokens',
    );
  });

  describe('the local provider', () => {
    const model = join(tmpdir(), `settings-spec-${process.pid}.Q4_K_M.gguf`);
    beforeAll(() => writeFileSync(model, 'GGUF'));

    it('without a model file: says so and stays on the offline summarizer', () => {
      for (const env of [
        { SUMMARIZER_PROVIDER: 'local' },
        { SUMMARIZER_PROVIDER: 'local', LOCAL_MODEL_PATH: '/nonexistent/model.gguf' },
      ]) {
        const warnings: string[] = [];
        const settings = summarizerSettings(validate(env), (m) => warnings.push(m));
        expect(settings.defaultProvider).toBe('offline');
        expect(settings.providers.local).toBeUndefined();
        expect(warnings).toEqual([expect.stringMatching(/^SUMMARIZER_PROVIDER=local but .*LOCAL_MODEL_PATH.*offline/)]);
      }
    });

    it('with a model file: threads explicit (the available cores by default), concurrency 1, the context as the window', () => {
      const warnings: string[] = [];
      const settings = summarizerSettings(
        validate({ SUMMARIZER_PROVIDER: 'local', LOCAL_MODEL_PATH: model, SUMMARIZER_MAX_CONCURRENCY: '8' }),
        (m) => warnings.push(m),
      );
      expect(warnings).toEqual([]);
      expect(settings.defaultProvider).toBe('local');
      expect(settings.providers.local).toEqual({
        provider: 'local',
        defaultModel: `settings-spec-${process.pid}.Q4_K_M`,
        contextWindow: 4096,
        maxConcurrency: 1,
        local: { modelPath: model, threads: availableParallelism(), contextSize: 4096 },
      });
      const tuned = summarizerSettings(
        validate({
          LOCAL_MODEL_PATH: model,
          LOCAL_THREADS: '1',
          LOCAL_CONTEXT_SIZE: '2048',
          LOCAL_MAX_CONCURRENCY: '2',
          LOCAL_MODEL_NAME: 'smol',
        }),
      );
      expect(tuned.defaultProvider).toBe('offline');
      expect(tuned.providers.local).toMatchObject({
        defaultModel: 'smol',
        maxConcurrency: 2,
        contextWindow: 2048,
        local: { threads: 1, contextSize: 2048 },
      });
    });
  });
});
