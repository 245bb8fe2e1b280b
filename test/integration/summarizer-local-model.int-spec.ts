import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { counterFor, type ChatMessage } from '@ctxledger/context-engine';
import type {
  ProviderSettings,
  SummarizerSettings,
} from '../../apps/summarizer-service/src/config/summarizer-settings';
import { createLlmClient } from '../../apps/summarizer-service/src/providers/llm-clients';
import { LocalLlamaClient } from '../../apps/summarizer-service/src/providers/local-llama.client';
import { describeFailure } from '../../apps/summarizer-service/src/summarization/provider-call';
import { checkSummary } from '../../apps/summarizer-service/src/summarization/summary-checks';
import {
  Summarizer,
  tokensReplaced,
  type SummaryJob,
} from '../../apps/summarizer-service/src/summarization/summarizer';

/**
 * The local provider with a real model: SmolLM2-135M-Instruct (the hash-pinned test model of
 * deploy/local/ensure-test-model), loaded once for the suite, driven through the service's own code path
 * (createLlmClient → Summarizer → callWithRetries → checks). Its summaries are poor: this asserts the mechanics
 * and the guarantees (bounded output, the timeout, the checks, one generation at a time), never the wording.
 */

const MODEL_PATH =
  process.env.CTXLEDGER_TEST_MODEL ??
  execFileSync(resolve(__dirname, '../../deploy/local/ensure-test-model'), { encoding: 'utf8' }).trim();
const CONTEXT_SIZE = 4096;
/**
 * Explicit, as always. One thread: on a shared CI machine (more runnable processes than cores) llama.cpp's
 * spinning threads collide; measured here under load, 40 tokens took 2-3 s with 1 thread and 23-38 s with 2.
 */
const THREADS = 1;
// CPU generation on a shared machine: generous per-test limits (each test states its own bound where it matters).
jest.setTimeout(240_000);

function providerSettings(modelPath = MODEL_PATH): ProviderSettings {
  return {
    provider: 'local',
    defaultModel: 'SmolLM2-135M-Instruct',
    contextWindow: CONTEXT_SIZE,
    maxConcurrency: 1,
    local: { modelPath, threads: THREADS, contextSize: CONTEXT_SIZE },
  };
}

function settings(overrides: Partial<SummarizerSettings> = {}): SummarizerSettings {
  return {
    defaultProvider: 'local',
    fallback: 'none',
    providers: { local: providerSettings() },
    // A loaded 2-core machine: far above what a short answer of the 135M model takes.
    timeoutMs: 120_000,
    retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 100 },
    outputHeadroomTokens: 0,
    ...overrides,
  };
}

/** A small agent session: a request, tool calls and their results, an error and its fix. */
const MESSAGES: ChatMessage[] = [
  { role: 'user', content: 'The build fails on main. Please find out why and fix it; keep the public API unchanged.' },
  {
    role: 'assistant',
    content: 'Running the tests first.',
    toolCalls: [{ id: 'c1', name: 'bash', arguments: '{"command":"npm test"}' }],
  },
  {
    role: 'tool',
    toolCallId: 'c1',
    content:
      'FAIL src/parser/tokenize.spec.ts\n  TypeError: Cannot read properties of undefined (reading "length")\n    at tokenize (src/parser/tokenize.ts:42:17)\nTests: 1 failed, 57 passed',
  },
  {
    role: 'assistant',
    content: 'tokenize() reads input.length before checking for an empty input. Guarding it.',
    toolCalls: [{ id: 'c2', name: 'edit', arguments: '{"file":"src/parser/tokenize.ts","line":41}' }],
  },
  { role: 'tool', toolCallId: 'c2', content: 'src/parser/tokenize.ts: 1 line changed' },
  {
    role: 'assistant',
    content: 'Running the tests again.',
    toolCalls: [{ id: 'c3', name: 'bash', arguments: '{"command":"npm test"}' }],
  },
  { role: 'tool', toolCallId: 'c3', content: 'Tests: 58 passed, 58 total' },
  { role: 'assistant', content: 'Fixed: tokenize() now returns [] for an empty input; all 58 tests pass.' },
];

const job = (over: Partial<SummaryJob> = {}): SummaryJob => ({
  requestId: 'r-local',
  messages: MESSAGES,
  maxSummaryTokens: 160,
  ...over,
});

let client: LocalLlamaClient;

beforeAll(async () => {
  client = createLlmClient(providerSettings()) as LocalLlamaClient;
  await client.loaded();
}, 180_000);

afterAll(async () => {
  await client?.close();
});

describe('the local provider with SmolLM2-135M-Instruct', () => {
  it('loads the model once, with the threads and the context size it was given', async () => {
    const info = await client.loaded();
    expect(client).toBeInstanceOf(LocalLlamaClient);
    expect(info.threads).toBe(THREADS);
    expect(info.sequences).toBe(1);
    expect(info.contextSize).toBeGreaterThanOrEqual(CONTEXT_SIZE);
    expect(info.trainContextSize).toBeGreaterThan(CONTEXT_SIZE);
  });

  it('writes a summary through the summarizer: provider local, within the limits the checks enforce', async () => {
    const summarizer = new Summarizer({ settings: settings(), clients: { local: client } });
    const outcome = await summarizer.summarize(job());
    expect(outcome).toMatchObject({ kind: 'completed', provider: 'local', model: 'SmolLM2-135M-Instruct' });
    if (outcome.kind !== 'completed') return;
    expect(outcome.fallbackFrom).toBeUndefined();
    const counter = counterFor({ provider: 'local' });
    const check = checkSummary(
      outcome.summary,
      { maxSummaryTokens: 160, tokensBefore: tokensReplaced(job(), counter), final: true },
      (t) => counter.text(t),
    );
    expect(check.ok).toBe(true);
    // The model's own counts: the prompt was read, and the answer stayed within the output cap.
    expect(outcome.inputTokens).toBeGreaterThan(200);
    expect(outcome.outputTokens).toBeGreaterThan(0);
    expect(outcome.outputTokens).toBeLessThanOrEqual(160);
  });

  it('stops generating at the output cap and says so (truncated)', async () => {
    const completion = await client.complete({
      model: 'SmolLM2-135M-Instruct',
      system: 'You are a storyteller.',
      prompt: 'Write a long story of at least 500 words about a lighthouse keeper.',
      maxOutputTokens: 12,
      signal: new AbortController().signal,
    });
    expect(completion.truncated).toBe(true);
    expect(completion.outputTokens).toBeLessThanOrEqual(12);
    expect(completion.text.trim()).not.toBe('');
  });

  it('a summary over the limit is rejected by the checks; the offline fallback answers instead', async () => {
    // maxSummaryTokens 64 with no headroom: the model's answer to this transcript does not fit in 64 tokens
    // (cut off at the cap, or over the limit by the engine's count).
    const summarizer = new Summarizer({ settings: settings({ fallback: 'offline' }), clients: { local: client } });
    const outcome = await summarizer.summarize(job({ maxSummaryTokens: 64 }));
    expect(outcome).toMatchObject({ kind: 'completed', provider: 'offline', fallbackFrom: { provider: 'local' } });
    if (outcome.kind === 'completed')
      expect(outcome.fallbackFrom?.reason).toMatch(/summary rejected: .*(cut off|over maxSummaryTokens 64)/);
  });

  it('honours the timeout: the call fails as a timeout on time, and generation really stops (the next call runs)', async () => {
    const summarizer = new Summarizer({
      // Room for a 500-token answer, which takes far longer than 400 ms.
      settings: settings({ timeoutMs: 400, outputHeadroomTokens: 200 }),
      clients: { local: client },
    });
    const started = performance.now();
    const outcome = await summarizer.summarize(job({ maxSummaryTokens: 300 }));
    const elapsed = performance.now() - started;
    expect(outcome).toMatchObject({ kind: 'failed', provider: 'local', retryable: true });
    if (outcome.kind === 'failed') expect(outcome.reason).toMatch(/^local SmolLM2-135M-Instruct: timeout.*400 ms/);
    expect(elapsed).toBeLessThan(400 + 3000);
    // The only sequence is free again once llama.cpp has stopped: a short call gets it and completes.
    const next = await client.complete({
      model: 'SmolLM2-135M-Instruct',
      system: 'Answer briefly.',
      prompt: 'Say hello.',
      maxOutputTokens: 4,
      signal: AbortSignal.timeout(60_000),
    });
    expect(next.outputTokens).toBeLessThanOrEqual(4);
  });

  it('runs one generation at a time (LOCAL_MAX_CONCURRENCY 1): concurrent calls queue and all complete', async () => {
    await Promise.all(
      ['red', 'green', 'blue'].map(async (colour) => {
        const completion = await client.complete({
          model: 'SmolLM2-135M-Instruct',
          system: 'Answer in one word.',
          prompt: `Name a fruit that is ${colour}.`,
          maxOutputTokens: 6,
          signal: AbortSignal.timeout(120_000),
        });
        expect(completion.outputTokens).toBeLessThanOrEqual(6);
      }),
    );
    expect(client.maxObservedConcurrency).toBe(1);
  });

  it('refuses a prompt that does not fit the context with its answer, as an overflow (not retried)', async () => {
    const error = await client
      .complete({
        model: 'SmolLM2-135M-Instruct',
        system: 'Summarize.',
        prompt: 'tokens '.repeat(4000),
        maxOutputTokens: 100,
        signal: new AbortController().signal,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Error);
    expect(describeFailure(error, false, (s) => s)).toMatchObject({ kind: 'overflow', retryable: false });
  });

  it('a file that is not a model: loading fails, and its requests fall back to the offline summarizer', async () => {
    const bogus = join(tmpdir(), `not-a-model-${process.pid}.gguf`);
    writeFileSync(bogus, 'this is not a GGUF file\n');
    const broken = new LocalLlamaClient(providerSettings(bogus));
    await expect(broken.loaded()).rejects.toThrow();
    const summarizer = new Summarizer({
      settings: settings({ fallback: 'offline', providers: { local: providerSettings(bogus) } }),
      clients: { local: broken },
    });
    const outcome = await summarizer.summarize(job());
    expect(outcome).toMatchObject({ kind: 'completed', provider: 'offline', fallbackFrom: { provider: 'local' } });
  });
});
