import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateEnv } from '@ctxledger/config';
import { SummarizerServiceEnv } from './summarizer-service.env';
import { describeProviders, secretsOf, summarizerSettings } from './summarizer-settings';

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

  describe('the LLM keys are secrets', () => {
    const keys = {
      OPENAI_API_KEY: 'sk-openai-9f8e7d6c5b4a',
      ANTHROPIC_API_KEY: 'sk-ant-api03-1a2b3c4d5e6f',
      GEMINI_API_KEY: 'AIza-gemini-0a1b2c3d4e5f',
      GOOGLE_API_KEY: 'AIza-google-6f5e4d3c2b1a',
    };
    const thrown = (raw: Record<string, string>): string => {
      try {
        validate(raw);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('expected the configuration to be refused');
    };
    let dir: string;
    beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'ctxledger-llm-keys-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it.each(Object.entries(keys))('%s: a bad value is refused by name, the value never shown', (name, key) => {
      const message = thrown({ [name]: `${key} pasted twice ${key}\n`, SUMMARIZER_FALLBACK: 'sometimes' });
      expect(message).toMatch(
        new RegExp(`${name}: must be one token, without spaces or new lines \\(value hidden: it is a secret\\)`),
      );
      expect(message).toMatch(/SUMMARIZER_FALLBACK: .*\(got "sometimes"\)/); // a value that is no secret is shown
      expect(message).not.toContain(key);
    });

    it('a key given twice, or a missing key file, names the variables only', () => {
      writeFileSync(join(dir, 'openai'), `${keys.OPENAI_API_KEY}\n`);
      const twice = thrown({ OPENAI_API_KEY: keys.OPENAI_API_KEY, OPENAI_API_KEY_FILE: join(dir, 'openai') });
      expect(twice).toMatch(/OPENAI_API_KEY: set it or OPENAI_API_KEY_FILE, not both/);
      expect(twice).not.toContain(keys.OPENAI_API_KEY);
      expect(thrown({ ANTHROPIC_API_KEY_FILE: join(dir, 'missing') })).toMatch(/ANTHROPIC_API_KEY_FILE: cannot read/);
      expect(validate({ OPENAI_API_KEY_FILE: join(dir, 'openai') }).OPENAI_API_KEY).toBe(keys.OPENAI_API_KEY);
    });

    it('other errors and the boot log never carry a key that is set', () => {
      const message = thrown({ ...keys, SUMMARIZER_PROVIDER: 'gemini', OPENAI_BASE_URL: 'ftp://x' });
      expect(message).toMatch(/SUMMARIZER_PROVIDER/);
      expect(message).toMatch(/OPENAI_BASE_URL: must be an http\(s\) URL/);
      const warnings: string[] = [];
      const settings = summarizerSettings(
        validate({
          ...keys,
          OPENAI_BASE_URL: `https://user:${keys.OPENAI_API_KEY}@llm.example/v1`,
          SUMMARIZER_PROVIDER: 'local',
          LOCAL_MODEL_PATH: '/nonexistent/model.gguf',
        }),
        (m) => warnings.push(m),
      );
      const logged = [describeProviders(settings), ...warnings].join('\n');
      expect(logged).toContain('openai (gpt-4o-mini at https://user:***@llm.example/v1');
      expect(logged).toContain('anthropic (claude-haiku-4-5');
      for (const key of Object.values(keys)) {
        expect(message).not.toContain(key);
        expect(logged).not.toContain(key);
      }
    });
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
