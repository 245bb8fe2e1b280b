import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Script, constants as vmConstants } from 'node:vm';
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel } from 'node-llama-cpp';
import type { LocalModelSettings, ProviderSettings } from '../config/summarizer-settings';
import { MalformedResponseError, type Completion, type CompletionRequest, type LlmClient } from './llm-client';

type NodeLlamaCpp = typeof import('node-llama-cpp');

/**
 * Node's own `import()`. node-llama-cpp is an ES module with top-level await: `require()` cannot load it, and
 * both tsc (CommonJS output) and webpack turn a plain `import()` into one. A script compiled with the main
 * context's default loader keeps a real `import()`, also inside a VM sandbox (jest).
 */
const nativeImport = new Script('(specifier) => import(specifier)', {
  importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
}).runInThisContext() as (specifier: string) => Promise<unknown>;

/**
 * node-llama-cpp's entry as a file URL, resolved by Node from this file (the webpack bundle keeps the real
 * `__filename`), so that the Function's import() does not depend on the working directory.
 */
export function nodeLlamaCppEntry(): string {
  return pathToFileURL(createRequire(__filename).resolve('node-llama-cpp')).href;
}

export interface LocalLlamaDeps {
  /** llama.cpp's own log lines (warnings and errors only). */
  readonly log?: (message: string) => void;
}

/** What loading took, for the boot log and the benchmark. */
export interface LocalModelInfo {
  readonly loadSeconds: number;
  readonly threads: number;
  readonly contextSize: number;
  readonly sequences: number;
  readonly trainContextSize: number;
}

interface Loaded {
  readonly lib: NodeLlamaCpp;
  readonly llama: Llama;
  readonly model: LlamaModel;
  readonly context: LlamaContext;
  readonly info: LocalModelInfo;
}

/**
 * A GGUF model in-process through node-llama-cpp's prebuilt CPU binary (`@node-llama-cpp/linux-x64`): never a
 * GPU, never a build from source, nothing downloaded. The model is loaded once, in the background from
 * construction; each call takes one of `maxConcurrency` context sequences, so at most that many generations run
 * at once (a call that timed out keeps its sequence until llama.cpp has really stopped). Greedy decoding: the
 * same input gives the same summary. The caller's guarantees apply as to any provider (timeout, retries, checks);
 * the answer is capped at `maxOutputTokens` by the generation itself, and a prompt that does not fit the context
 * with that answer is refused as an overflow instead of being shifted out of the window.
 */
export class LocalLlamaClient implements LlmClient {
  readonly provider = 'local' as const;
  private readonly local: LocalModelSettings;
  private readonly sequences: number;
  private readonly ready: Promise<Loaded>;
  private readonly free: LlamaContextSequence[] = [];
  private readonly waiting: Array<(sequence: LlamaContextSequence) => void> = [];
  private active = 0;
  private peakActive = 0;

  constructor(settings: ProviderSettings, deps: LocalLlamaDeps = {}) {
    if (!settings.local) throw new Error('the local provider needs its model settings (LOCAL_MODEL_PATH)');
    this.local = settings.local;
    this.sequences = settings.maxConcurrency;
    this.ready = this.load(deps.log ?? (() => undefined));
    // A load failure is reported by every call (and by whoever awaits `loaded()`), never as an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  /** Resolves once the model is loaded (rejects with the reason it could not be). */
  async loaded(): Promise<LocalModelInfo> {
    return (await this.ready).info;
  }

  /** The most generations that ran at once so far (the concurrency guarantee, observable). */
  get maxObservedConcurrency(): number {
    return this.peakActive;
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    const { lib, model, info } = await untilAborted(this.ready, request.signal);
    const system = model.tokenize(request.system).length;
    const prompt = model.tokenize(request.prompt).length;
    // The chat template's own tokens (role markers) come on top: a small allowance.
    const needed = system + prompt + request.maxOutputTokens + 32;
    if (needed > info.contextSize) {
      throw new Error(
        `the request (${system + prompt} prompt tokens and a ${request.maxOutputTokens}-token answer) exceeds the available context size (${info.contextSize} tokens)`,
      );
    }
    const sequence = await this.acquire(request.signal);
    const session = new lib.LlamaChatSession({
      contextSequence: sequence,
      systemPrompt: request.system,
      autoDisposeSequence: false,
    });
    const before = sequence.tokenMeter.getState();
    try {
      const result = await session.promptWithMeta(request.prompt, {
        maxTokens: request.maxOutputTokens,
        temperature: 0,
        // Greedy decoding alone sends small models into loops until the cap (a rejected summary).
        repeatPenalty: { lastTokens: 64, penalty: 1.1 },
        signal: request.signal,
      });
      const after = sequence.tokenMeter.getState();
      if (result.responseText.trim() === '') throw new MalformedResponseError('the model answered nothing');
      return {
        text: result.responseText,
        truncated: result.stopReason === 'maxTokens',
        inputTokens: after.usedInputTokens - before.usedInputTokens,
        outputTokens: after.usedOutputTokens - before.usedOutputTokens,
        model: request.model,
      };
    } finally {
      session.dispose({ disposeSequence: false });
      await sequence.clearHistory();
      this.release(sequence);
    }
  }

  /** Frees the model and the native backend. */
  async close(): Promise<void> {
    const loaded = await this.ready.catch(() => undefined);
    if (loaded) await loaded.llama.dispose();
  }

  private async load(log: (message: string) => void): Promise<Loaded> {
    const started = performance.now();
    const lib = (await nativeImport(nodeLlamaCppEntry())) as NodeLlamaCpp;
    const llama = await lib.getLlama({
      gpu: false,
      build: 'never',
      usePrebuiltBinaries: true,
      skipDownload: true,
      progressLogs: false,
      maxThreads: this.local.threads,
      logLevel: lib.LlamaLogLevel.warn,
      logger: (_level, message) => log(message.trim()),
    });
    try {
      const model = await llama.loadModel({ modelPath: this.local.modelPath });
      const context = await model.createContext({
        contextSize: this.local.contextSize,
        sequences: this.sequences,
        threads: this.local.threads,
      });
      for (let i = 0; i < this.sequences; i++) this.free.push(context.getSequence());
      return {
        lib,
        llama,
        model,
        context,
        info: {
          loadSeconds: (performance.now() - started) / 1000,
          threads: this.local.threads,
          contextSize: context.contextSize,
          sequences: this.sequences,
          trainContextSize: model.trainContextSize,
        },
      };
    } catch (error) {
      await llama.dispose().catch(() => undefined);
      throw error;
    }
  }

  /** A free sequence, or the next one released (in arrival order); the signal gives up waiting. */
  private acquire(signal: AbortSignal): Promise<LlamaContextSequence> {
    const take = (sequence: LlamaContextSequence) => {
      this.active++;
      this.peakActive = Math.max(this.peakActive, this.active);
      return sequence;
    };
    const free = this.free.pop();
    if (free) return Promise.resolve(take(free));
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const waiter = (sequence: LlamaContextSequence) => {
        signal.removeEventListener('abort', abort);
        resolve(take(sequence));
      };
      const abort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', abort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private release(sequence: LlamaContextSequence): void {
    this.active--;
    const next = this.waiting.shift();
    if (next) next(sequence);
    else this.free.push(sequence);
  }
}

/** `promise`, or the signal's reason once it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error as Error);
      },
    );
  });
}
