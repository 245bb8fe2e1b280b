import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve } from 'node:path';

/** Where the page is served. */
export const UI_PATH = '/ui';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** The page talks to this origin only; no inline script, no frames. */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

export interface UiAsset {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

/**
 * The built page (`ui/` beside the built main.js: `nest build session-service` bundles it there). The first
 * folder of `candidates` holding an index.html.
 */
export function loadUiAssets(candidates: readonly string[]): { dir: string; assets: Map<string, UiAsset> } | null {
  const dir = candidates.find((d) => existsSync(join(d, 'index.html')));
  if (!dir) return null;
  const assets = new Map<string, UiAsset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const body = readFileSync(join(dir, name));
    assets.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
  return { dir, assets };
}

/**
 * Answers GET/HEAD under /ui from the loaded assets: `/ui` and `/ui/` are the page, `/ui/<file>` a bundle file,
 * anything else under /ui 404. Returns false for other paths. The page holds no data: every datum comes from
 * /v1 with the caller's API key, so the files are served without one (like /health).
 */
export function serveUi(
  assets: Map<string, UiAsset> | null,
  req: Pick<IncomingMessage, 'method' | 'url' | 'headers'>,
  res: ServerResponse,
): boolean {
  const path = (req.url ?? '').split('?')[0]!;
  if (path !== UI_PATH && !path.startsWith(`${UI_PATH}/`)) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const send = (status: number, headers: Record<string, string>, body?: Buffer | string) => {
    res.writeHead(status, { ...SECURITY_HEADERS, ...headers });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  if (!assets) {
    send(
      503,
      { 'Content-Type': 'text/plain; charset=utf-8' },
      'the inspector page is not built: run `npm run build`\n',
    );
    return true;
  }
  const rest = path.slice(UI_PATH.length).replace(/^\/+/, '');
  const asset = assets.get(rest === '' ? 'index.html' : rest);
  if (!asset || rest.includes('/')) {
    send(404, { 'Content-Type': 'text/plain; charset=utf-8' }, 'not found\n');
    return true;
  }
  if (req.headers['if-none-match'] === asset.etag) {
    send(304, { ETag: asset.etag });
    return true;
  }
  send(200, { 'Content-Type': asset.type, 'Content-Length': String(asset.body.length), ETag: asset.etag }, asset.body);
  return true;
}

/**
 * Mounts the session inspector's page at /ui on the HTTP server, ahead of the API's routes (plain middleware: the
 * API key guard and the rate limit apply to the /v1 calls the page makes, not to its files).
 */
@Injectable()
export class UiAssetsServer implements OnModuleInit {
  private readonly logger = new Logger('Inspector');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return; // no HTTP server (the projector alone)
    const loaded = loadUiAssets([join(__dirname, 'ui'), resolve(process.cwd(), 'dist/apps/session-service/ui')]);
    if (loaded) this.logger.log(`session inspector at ${UI_PATH} (${loaded.assets.size} files from ${loaded.dir})`);
    else
      this.logger.warn(
        `the session inspector page is not built (no ui/index.html beside main.js): ${UI_PATH} answers 503`,
      );
    const assets = loaded?.assets ?? null;
    adapter.use((req: IncomingMessage, res: ServerResponse, next: () => void) => {
      if (!serveUi(assets, req, res)) next();
    });
  }
}
