import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  anthropicMessage,
  geminiResponse,
  openAiCompletion,
  RECORDED_ERRORS,
  RECORDED_SUMMARY,
  type FakeProvider,
  type RecordedError,
} from './recorded';

/**
 * What the fake does with one call. Scenes queued for a provider are used in order, one per call; with the
 * queue empty it answers with `RECORDED_SUMMARY` (or the provider's default reply).
 */
export type Scene =
  | { readonly reply?: string; readonly finish?: 'stop' | 'length'; readonly delayMs?: number }
  | { readonly fault: 'rate-limit'; readonly retryAfterSeconds?: number }
  | { readonly fault: 'server-error' | 'overflow' | 'auth' }
  /** Answers only after `delayMs` (longer than the client's timeout: the client gives up first). */
  | { readonly fault: 'timeout'; readonly delayMs: number }
  /** 200 with a body that is not JSON (a proxy cut it). */
  | { readonly fault: 'malformed' }
  /** A valid answer whose summary is far over any sensible limit. */
  | { readonly fault: 'too-long'; readonly lines?: number }
  /** The connection is closed without an answer. */
  | { readonly fault: 'connection-reset' }
  | { readonly error: RecordedError };

export interface RecordedCall {
  readonly provider: FakeProvider;
  readonly path: string;
  readonly model: string;
  /** Request headers (the test checks the key arrived; nothing here is printed). */
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
  /** The system prompt and the user prompt, extracted from each provider's wire format. */
  readonly system: string;
  readonly prompt: string;
  readonly at: number;
  readonly scene: string;
}

/**
 * A local HTTP server that speaks OpenAI chat completions (`/openai/v1/chat/completions`), Anthropic messages
 * (`/anthropic/v1/messages`) and Gemini generateContent (`/google/v1beta/models/<model>:generateContent`), so
 * the real SDKs can be driven against it with recorded-style answers and injected faults. It counts and keeps
 * every call it received.
 */
export class FakeLlmServer {
  readonly calls: RecordedCall[] = [];
  private readonly queues = new Map<FakeProvider, Scene[]>();
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private server?: Server;
  private url = '';
  private inFlight = 0;
  /** The most calls it was answering at once (to check concurrency limits). */
  maxInFlight = 0;
  /** The default answer when no scene is queued. */
  defaultReply: (call: Omit<RecordedCall, 'scene' | 'at'>) => string = () => RECORDED_SUMMARY;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    this.url = `http://127.0.0.1:${address.port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
  }

  /** Base URLs to give the SDKs (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GEMINI_BASE_URL). */
  get baseUrls(): Record<FakeProvider, string> {
    return { openai: `${this.url}/openai/v1`, anthropic: `${this.url}/anthropic`, google: `${this.url}/google` };
  }

  /** Queues what the next calls to `provider` get, in order. */
  script(provider: FakeProvider, ...scenes: Scene[]): this {
    this.queues.set(provider, [...(this.queues.get(provider) ?? []), ...scenes]);
    return this;
  }

  reset(): void {
    this.calls.length = 0;
    this.queues.clear();
    this.maxInFlight = 0;
    this.defaultReply = () => RECORDED_SUMMARY;
  }

  callsTo(provider: FakeProvider): RecordedCall[] {
    return this.calls.filter((c) => c.provider === provider);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.once('close', () => this.inFlight--);
    const raw = await readBody(req);
    const url = req.url ?? '';
    const route = routeOf(req.method ?? 'GET', url);
    if (!route) {
      send(res, { status: 404, body: { error: { message: `no route ${req.method} ${url}` } } });
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      send(res, { status: 400, body: { error: { message: 'request body is not JSON' } } });
      return;
    }
    const { provider } = route;
    const model = route.model ?? String(body.model ?? '');
    const { system, prompt } = promptsOf(provider, body);
    const scene = this.queues.get(provider)?.shift();
    const base = { provider, path: url.split('?')[0], model, headers: req.headers, body, system, prompt };
    this.calls.push({ ...base, at: Date.now(), scene: describe(scene) });
    const usage = { input: Math.ceil((system.length + prompt.length) / 4), output: 0 };

    const answer = (text: string, truncated = false) => {
      const u = { ...usage, output: Math.ceil(text.length / 4) };
      const payload =
        provider === 'openai'
          ? openAiCompletion(text, model, u, truncated ? 'length' : 'stop')
          : provider === 'anthropic'
            ? anthropicMessage(text, model, u, truncated ? 'max_tokens' : 'end_turn')
            : geminiResponse(text, model, u, truncated ? 'MAX_TOKENS' : 'STOP');
      send(res, {
        status: 200,
        headers: provider === 'openai' ? { 'openai-processing-ms': '812' } : {},
        body: payload,
      });
    };

    if (!scene) return answer(this.defaultReply(base));
    if ('error' in scene) return send(res, scene.error);
    if (!('fault' in scene)) {
      const s = scene as { reply?: string; finish?: string; delayMs?: number };
      const reply = () => answer(s.reply ?? this.defaultReply(base), s.finish === 'length');
      if (!s.delayMs) return reply();
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (!res.destroyed) reply();
      }, s.delayMs);
      this.timers.add(timer);
      return;
    }
    switch (scene.fault) {
      case 'rate-limit':
        return send(res, RECORDED_ERRORS['rate-limit'](scene.retryAfterSeconds ?? 1)[provider]);
      case 'server-error':
      case 'overflow':
      case 'auth':
        return send(res, RECORDED_ERRORS[scene.fault](0)[provider]);
      case 'timeout': {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (!res.destroyed) answer(this.defaultReply(base));
        }, scene.delayMs);
        this.timers.add(timer);
        return;
      }
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          '{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion","choices":[{"index":0,"message":{"role":"assi',
        );
        return;
      case 'too-long':
        return answer(`${RECORDED_SUMMARY}\n${'- more detail that nobody asked for\n'.repeat(scene.lines ?? 300)}`);
      case 'connection-reset':
        req.socket.destroy();
        return;
    }
  }
}

function routeOf(method: string, url: string): { provider: FakeProvider; model?: string } | undefined {
  if (method !== 'POST') return undefined;
  const path = url.split('?')[0];
  if (path === '/openai/v1/chat/completions') return { provider: 'openai' };
  if (path === '/anthropic/v1/messages') return { provider: 'anthropic' };
  const google = /^\/google\/v1(?:beta)?\/models\/([^/:]+):generateContent$/.exec(path);
  if (google) return { provider: 'google', model: decodeURIComponent(google[1]) };
  return undefined;
}

/** The system and user prompt of a request, whatever the wire format. */
function promptsOf(provider: FakeProvider, body: Record<string, unknown>): { system: string; prompt: string } {
  const text = (v: unknown): string =>
    typeof v === 'string'
      ? v
      : Array.isArray(v)
        ? v.map((p) => text((p as { text?: unknown }).text ?? (p as { parts?: unknown }).parts ?? p)).join('')
        : v && typeof v === 'object' && 'parts' in v
          ? text((v as { parts: unknown }).parts)
          : '';
  if (provider === 'openai') {
    const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
    return {
      system: messages
        .filter((m) => m.role === 'system' || m.role === 'developer')
        .map((m) => text(m.content))
        .join('\n'),
      prompt: messages
        .filter((m) => m.role === 'user')
        .map((m) => text(m.content))
        .join('\n'),
    };
  }
  if (provider === 'anthropic') {
    const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
    return { system: text(body.system), prompt: messages.map((m) => text(m.content)).join('\n') };
  }
  const contents = (body.contents ?? []) as Array<{ parts?: unknown }>;
  const systemInstruction =
    body.systemInstruction ?? (body.config as { systemInstruction?: unknown } | undefined)?.systemInstruction;
  return { system: text(systemInstruction), prompt: contents.map((c) => text(c.parts)).join('\n') };
}

function describe(scene: Scene | undefined): string {
  if (!scene) return 'default';
  if (!('fault' in scene) && !('error' in scene)) return 'reply';
  if ('error' in scene) return `error ${scene.error.status}`;
  return scene.fault;
}

function send(res: ServerResponse, error: RecordedError): void {
  res.writeHead(error.status, { 'content-type': 'application/json', ...(error.headers ?? {}) });
  res.end(JSON.stringify(error.body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done, fail) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (data += c));
    req.on('end', () => done(data));
    req.on('error', fail);
  });
}
