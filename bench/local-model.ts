/**
 * The local provider's figures on this machine: model load time, prompt and generation tokens/s, peak RSS and
 * the latency of a summary through the Summarizer (the service's code path), with the test model
 * (deploy/local/ensure-test-model) or the GGUF file LOCAL_MODEL_PATH names.
 *   npm run bench:local-model                    # SmolLM2-135M-Instruct, 1 and 2 threads
 *   LOCAL_MODEL_PATH=… LOCAL_THREADS=2 BENCH_SUMMARIES=1 npm run bench:local-model
 * On a shared machine the figures are noisy: run it twice and compare.
 */
import { execFileSync } from 'node:child_process';
import { basename, resolve } from 'node:path';
import type { ChatMessage } from '@ctxledger/context-engine';
import type { ProviderSettings } from '../apps/summarizer-service/src/config/summarizer-settings';
import { LocalLlamaClient } from '../apps/summarizer-service/src/providers/local-llama.client';
import { Summarizer } from '../apps/summarizer-service/src/summarization/summarizer';

const modelPath =
  process.env.LOCAL_MODEL_PATH ??
  execFileSync(resolve(__dirname, '../deploy/local/ensure-test-model'), { encoding: 'utf8' }).trim();
const threadCounts = process.env.LOCAL_THREADS ? [Number(process.env.LOCAL_THREADS)] : [1, 2];
const contextSize = Number(process.env.LOCAL_CONTEXT_SIZE ?? 4096);
const runs = Number(process.env.BENCH_SUMMARIES ?? 3);
const name = basename(modelPath).replace(/\.gguf$/i, '');

/** A ~1,500-token agent session: requests, tool calls, outputs, an error. */
function session(seed: number): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'user', content: `Task ${seed}: make the importer accept CSV files with a BOM.` },
  ];
  for (let i = 0; i < 8; i++) {
    messages.push({
      role: 'assistant',
      content: `Step ${i + 1}: checking src/import/csv-${i}.ts.`,
      toolCalls: [{ id: `c${i}`, name: 'bash', arguments: `{"command":"npm test -- csv-${i}"}` }],
    });
    messages.push({
      role: 'tool',
      toolCallId: `c${i}`,
      content:
        `PASS src/import/csv-${i}.spec.ts (${i + 3} tests)\n` +
        (i === 4
          ? 'FAIL src/import/bom.spec.ts\n  Expected "id" but got "\\ufeffid" at parseHeader (src/import/csv.ts:31)\n'
          : '') +
        'lines read: 120, rows imported: 118, skipped: 2 (empty)\n'.repeat(3),
    });
  }
  messages.push({ role: 'assistant', content: 'Stripped the BOM in parseHeader; every CSV test passes.' });
  return messages;
}

async function run(threads: number): Promise<Record<string, string | number>> {
  const settings: ProviderSettings = {
    provider: 'local',
    defaultModel: name,
    contextWindow: contextSize,
    maxConcurrency: 1,
    local: { modelPath, threads, contextSize },
  };
  const client = new LocalLlamaClient(settings);
  const info = await client.loaded();
  const long = session(0)
    .map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : ''}`)
    .join('\n');
  const signal = AbortSignal.timeout(600_000);
  const call = async (prompt: string, maxOutputTokens: number) => {
    const started = performance.now();
    const c = await client.complete({ model: name, system: 'Summarize.', prompt, maxOutputTokens, signal });
    return { seconds: (performance.now() - started) / 1000, input: c.inputTokens ?? 0, output: c.outputTokens ?? 0 };
  };
  // Prompt: the long session with one output token; generation: a short prompt and 64 output tokens.
  const prompt = await call(long, 1);
  const generation = await call('Write a long story about a lighthouse keeper.', 64);

  const summarizer = new Summarizer({
    settings: {
      defaultProvider: 'local',
      fallback: 'none',
      providers: { local: settings },
      timeoutMs: 300_000,
      retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 100 },
      outputHeadroomTokens: 0,
    },
    clients: { local: client },
  });
  const latencies: number[] = [];
  const outcomes: string[] = [];
  for (let i = 1; i <= runs; i++) {
    const started = performance.now();
    const outcome = await summarizer.summarize({ requestId: `b${i}`, messages: session(i), maxSummaryTokens: 300 });
    latencies.push((performance.now() - started) / 1000);
    outcomes.push(
      outcome.kind === 'completed' ? `ok ${outcome.outputTokens}t` : outcome.reason.replace(/^.*?: /, '').slice(0, 60),
    );
  }
  await client.close();
  return {
    model: name,
    threads,
    'load s': info.loadSeconds.toFixed(1),
    'prompt tok/s': Math.round(prompt.input / prompt.seconds),
    'gen tok/s': Math.round(generation.output / generation.seconds),
    [`summary s (${runs} runs)`]: latencies.map((s) => s.toFixed(1)).join(' / '),
    outcomes: outcomes.join(', '),
    'peak RSS MB': Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

async function main(): Promise<void> {
  const rows = [];
  for (const threads of threadCounts) rows.push(await run(threads));
  console.table(rows);
  console.log('peak RSS is the process high-water mark so far (cumulative across rows).');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
