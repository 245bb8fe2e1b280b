import { mkdtempSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadUiAssets, serveUi } from './ui-assets';

function response() {
  const sent: { status?: number; headers?: Record<string, string>; body?: string } = {};
  const res = {
    writeHead: (status: number, headers: Record<string, string>) => Object.assign(sent, { status, headers }),
    end: (body?: Buffer | string) => Object.assign(sent, { body: body?.toString() }),
  } as unknown as ServerResponse;
  return { res, sent };
}

describe('the inspector page files (/ui)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ui-assets-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="app"></div>');
  writeFileSync(join(dir, 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'notes.unknown'), 'not served');
  const loaded = loadUiAssets([join(dir, 'missing'), dir])!;
  const get = (url: string, headers: Record<string, string> = {}, assets = loaded.assets) => {
    const { res, sent } = response();
    const handled = serveUi(assets, { method: 'GET', url, headers }, res);
    return { handled, ...sent };
  };

  it('serves the page at /ui and /ui/, its files by name, with a strict content security policy', () => {
    expect(loaded.dir).toBe(dir);
    for (const url of ['/ui', '/ui/', '/ui?x=1']) {
      const r = get(url);
      expect(r).toMatchObject({ handled: true, status: 200, body: '<!doctype html><div id="app"></div>' });
      expect(r.headers!['Content-Type']).toMatch(/text\/html/);
      expect(r.headers!['Content-Security-Policy']).toMatch(/script-src 'self'/);
    }
    expect(get('/ui/app.js')).toMatchObject({ status: 200, body: 'console.log(1)' });
    expect(get('/ui/app.js').headers!['Content-Type']).toMatch(/javascript/);
  });

  it('answers 304 to a matching ETag, 404 to anything else under /ui, and leaves other paths to the API', () => {
    const etag = get('/ui/app.js').headers!.ETag!;
    expect(get('/ui/app.js', { 'if-none-match': etag })).toMatchObject({ status: 304 });
    expect(get('/ui/notes.unknown')).toMatchObject({ handled: true, status: 404 });
    expect(get('/ui/../package.json')).toMatchObject({ handled: true, status: 404 });
    expect(get('/v1/sessions')).toEqual({ handled: false });
    expect(get('/uix')).toEqual({ handled: false });
  });

  it('says how to build the page when it is not built', () => {
    expect(loadUiAssets([join(dir, 'missing')])).toBeNull();
    expect(get('/ui', {}, null as never)).toMatchObject({ status: 503 });
    expect(get('/ui', {}, null as never).body).toMatch(/npm run build/);
  });
});
