import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startService, type RunningService } from '../support/service-process';
import { testStack, unique } from '../support/stack-settings';
import { transcript } from '../support/transcripts';
import { eventually } from '../support/eventually';

/** Debian's Chromium (deploy/local/ensure-chromium installs it; the global set-up runs that). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Screenshots of each view: test artefacts (git-ignored). */
const ARTIFACTS = resolve(__dirname, '../artifacts/ui');

const ACME_KEY = `acme-${'k'.repeat(32)}-${Math.random().toString(36).slice(2)}`;
const OTHER_KEY = `other-${'o'.repeat(32)}-${Math.random().toString(36).slice(2)}`;

interface BlockListed {
  id: string;
  stage: string;
  range: { from: number; to: number };
  edits: { from: number; to: number }[];
  active: boolean;
}

describe('the session inspector (/ui) in a real browser, against the real stack', () => {
  const prefix = unique('ui').replace(/-/g, '_');
  const env = {
    TOPIC_PREFIX: prefix,
    MONGODB_URI: testStack().mongoUri.replace(/\/[^/]*$/, `/${prefix}`),
    SUMMARY_TIMEOUT_MS: '20000',
    API_KEYS: `acme:${ACME_KEY},other:${OTHER_KEY}`,
  };
  const services: Record<string, RunningService> = {};
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const session = transcript('pi-coding-agent:d703a1a9');
  const sessionId = unique('inspect');
  const otherSessionId = unique('elsewhere');

  const api = async (key: string, path: string, init: RequestInit = {}) => {
    const res = await fetch(`${services.session!.url}/v1${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...init.headers },
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim() ?? '';
  const digits = (s: string) => Number(s.replace(/[^0-9]/g, ''));

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    services.compaction = await startService('compaction-service', env);
    [services.session, services.summarizer] = await Promise.all([
      startService('session-service', env),
      startService('summarizer-service', env),
    ]);
    // A real transcript, written through the public API by its tenant; another tenant's session beside it.
    const put = await api(ACME_KEY, `/sessions/${sessionId}/config`, {
      method: 'PUT',
      body: JSON.stringify({ provider: 'anthropic', model: 'claude-sonnet-4-5', maxOutputTokens: 64_000 }),
    });
    expect(put.status).toBe(202);
    for (let i = 0; i < session.messages.length; i += 100) {
      const posted = await api(ACME_KEY, `/sessions/${sessionId}/messages`, {
        method: 'POST',
        body: JSON.stringify({
          messages: session.messages.slice(i, i + 100).map((m, k) => ({ ...m, clientMessageId: `m${i + k}` })),
        }),
      });
      expect(posted.status).toBe(202);
    }
    expect(
      (
        await api(OTHER_KEY, `/sessions/${otherSessionId}/messages`, {
          method: 'POST',
          body: JSON.stringify({ messages: [{ role: 'user', content: 'a secret of the other tenant' }] }),
        })
      ).status,
    ).toBe(202);
    // Compacted and quiet: every message projected, blocks made, no summary pending, the block count settled.
    let lastTotal = -1;
    await eventually(
      async () => (await api(ACME_KEY, `/sessions/${sessionId}/stats`)).body,
      (s) => {
        const settled =
          s.messageCount === session.messages.length &&
          s.blocks?.active > 0 &&
          s.summaryPending === false &&
          s.fits === true &&
          s.blocks.total === lastTotal;
        lastTotal = s.blocks?.total ?? -1;
        return settled;
      },
      'the transcript projected and compacted',
    );

    profile = mkdtempSync(join(tmpdir(), 'ctxledger-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await Promise.all(Object.values(services).map((s) => s.stop()));
  });

  it('serves the page without a key (it holds no data), while its API calls need one', async () => {
    const res = await fetch(`${services.session!.url}/ui`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const html = await res.text();
    expect(html).toContain('/ui/app.js');
    expect((await fetch(`${services.session!.url}/ui/app.js`)).status).toBe(200);
    expect((await fetch(`${services.session!.url}/v1/sessions`)).status).toBe(401);
  });

  it('asks for the API key once, then lists the tenant’s sessions with their tokens, budget use and blocks', async () => {
    await page.goto(`${services.session!.url}/ui`);
    await page.getByLabel('API key').waitFor();
    await shot('0-sign-in');
    await page.getByLabel('API key').fill(ACME_KEY);
    await page.getByRole('button', { name: 'Open' }).click();
    const row = page.locator('table.sessions tbody tr', { hasText: sessionId });
    await row.waitFor();
    const stats = (await api(ACME_KEY, `/sessions/${sessionId}/stats`)).body;
    const cells = await row.locator('td').allTextContents();
    expect(cells).toContain(session.messages.length.toLocaleString('en-US'));
    expect(cells.join(' ')).toContain(`${Math.round(stats.usageRatio * 100)}%`);
    expect(cells.join(' ')).toContain(String(stats.blocks.active));
    // Another tenant's session is not listed.
    expect(await page.locator('table.sessions').textContent()).not.toContain(otherSessionId);
    await shot('1-sessions');

    // Search by id; the key is kept for the browser session (a reload does not ask again).
    await page.getByLabel('Session id contains').fill(sessionId.split('-').slice(0, 3).join('-'));
    await page.getByRole('button', { name: 'Search' }).click();
    await row.waitFor();
    await page.reload();
    await page.locator('table.sessions tbody tr', { hasText: sessionId }).waitFor();
    expect(await page.getByLabel('API key').count()).toBe(0);
  });

  let chosen: BlockListed;
  let toolResult: string;

  it('opens the session: the timeline shows its blocks; a block’s diff shows an original tool result beside its replacement', async () => {
    await page.locator('table.sessions a', { hasText: sessionId }).click();
    const { blocks } = (await api(ACME_KEY, `/sessions/${sessionId}/blocks`)).body as { blocks: BlockListed[] };
    await page.locator('.block-link').first().waitFor();
    const shown = await page
      .locator('.block-link')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-block-id')));
    expect(shown).toEqual(blocks.map((b) => b.id));
    expect(await page.locator('.ruler-seg').count()).toBeGreaterThanOrEqual(blocks.length);
    await shot('2-timeline');

    // A block the model's view shows (not hidden inside a later one), over a tool result: reverting it must
    // change the effective history.
    const effective = (await api(ACME_KEY, `/sessions/${sessionId}/effective?limit=500`)).body;
    const visible = new Set<string>(effective.entries.filter((e: any) => e.blockId).map((e: any) => e.blockId));
    const isTool = (p: number) =>
      session.messages[p]?.role === 'tool' && session.messages[p]!.content.trim().length > 40;
    const candidates = blocks.filter((b) => b.active && visible.has(b.id));
    const order = [
      'prune',
      'truncate',
      'dedupe',
      'split-turn',
      'sliding-window',
      'summary',
      'digest',
      'keep-within-budget',
    ];
    candidates.sort((a, b) => order.indexOf(a.stage) - order.indexOf(b.stage));
    let position = -1;
    chosen = candidates.find((b) =>
      b.edits.some((e) => {
        // the first page of an edit's originals (200) is shown at once
        for (let p = e.from; p <= Math.min(e.to, e.from + 199); p++) if (isTool(p)) return (position = p) >= 0;
        return false;
      }),
    )!;
    expect(chosen).toBeDefined();
    const line = session.messages[position]!.content.split('\n').find((l) => l.trim().length > 20)!;
    toolResult = line;

    await page.locator(`.block-link[data-block-id="${chosen.id}"]`).click();
    const panel = page.getByTestId('block-panel');
    await panel.locator('table.diff tbody tr').first().waitFor();
    expect(await panel.textContent()).toContain(chosen.stage);
    expect(await text('[data-testid=block-state]')).toBe('active');
    const saved = (await api(ACME_KEY, `/sessions/${sessionId}/blocks/${chosen.id}`)).body.tokensSaved;
    expect(digits(await text('[data-testid=tokens-saved]')).toString()).toContain(String(saved));
    // The edit holding the tool result, opened if it is not already.
    const edits = panel.locator('section.edit');
    const editIndex = chosen.edits.findIndex((e) => e.from <= position && position <= e.to);
    const edit = edits.nth(editIndex);
    if ((await edit.locator('table.diff').count()) === 0) await edit.locator('h3 button').click();
    const left = edit.locator('td.diff-left', { hasText: toolResult.trim() });
    await left.first().waitFor();
    const header = new RegExp(`tool result #${position}( |$)`);
    expect(await edit.locator('td.diff-left', { hasText: header }).count()).toBe(1);
    await panel.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await shot('3-block-diff');
  });

  let before: { effective: number; chart: number; stats: number };

  it('shows the effective history as the model sees it, per provider format, and the tokens over time', async () => {
    const base = `${services.session!.url}/ui#/s/${sessionId}`;
    await page.goto(`${base}/effective`);
    const summary = page.getByTestId('effective-summary');
    await summary.waitFor();
    const api0 = (await api(ACME_KEY, `/sessions/${sessionId}/effective?format=openai&limit=1`)).body;
    expect(await summary.textContent()).toContain(`${api0.tokens.toLocaleString('en-US')} tokens`);
    expect(await page.locator('table.effective tbody tr').count()).toBe(Math.min(100, api0.total));
    await page.getByLabel('Format').selectOption('anthropic');
    await page.locator('table.effective thead', { hasText: 'As sent (anthropic)' }).waitFor();
    await page.getByLabel('Format').selectOption('openai');
    await shot('4-effective');

    await page.goto(`${base}/tokens`);
    await page.locator('[data-testid=chart] canvas').waitFor();
    const series = (await api(ACME_KEY, `/sessions/${sessionId}/tokens`)).body;
    expect(digits(await text('[data-testid=chart-effective]'))).toBe(series.effective.at(-1));
    await shot('5-tokens');
    before = {
      effective: api0.tokens,
      chart: series.effective.at(-1),
      stats: (await api(ACME_KEY, `/sessions/${sessionId}/stats`)).body.effectiveTokens,
    };
  });

  it('reverts the block from its page: the effective history and the chart change', async () => {
    await page.goto(`${services.session!.url}/ui#/s/${sessionId}/timeline/${chosen.id}`);
    await page.getByRole('button', { name: 'Revert this block' }).click();
    await page.locator('[role=status]', { hasText: 'the block is reverted' }).waitFor({ timeout: 60_000 });
    await page.locator('[data-testid=block-state]', { hasText: 'reverted' }).waitFor();
    await shot('6-reverted');
    const listed = (await api(ACME_KEY, `/sessions/${sessionId}/blocks`)).body.blocks as BlockListed[];
    expect(listed.find((b) => b.id === chosen.id)?.active).toBe(false);

    const stats = (await api(ACME_KEY, `/sessions/${sessionId}/stats`)).body;
    expect(stats.effectiveTokens).toBeGreaterThan(before.stats); // what it hid is back

    await page.getByRole('tab', { name: 'Effective history' }).click();
    const summary = page.getByTestId('effective-summary');
    await summary.waitFor();
    const now = (await api(ACME_KEY, `/sessions/${sessionId}/effective?format=openai&limit=1`)).body;
    expect(now.tokens).toBeGreaterThan(before.effective);
    await page
      .getByTestId('effective-summary')
      .filter({ hasText: `${now.tokens.toLocaleString('en-US')} tokens` })
      .waitFor();
    await shot('7-effective-after-revert');

    await page.getByRole('tab', { name: 'Tokens over time' }).click();
    await page.locator('[data-testid=chart] canvas').waitFor();
    const series = (await api(ACME_KEY, `/sessions/${sessionId}/tokens`)).body;
    expect(series.effective.at(-1)).toBeGreaterThan(before.chart);
    await page
      .getByTestId('chart-effective')
      .filter({ hasText: series.effective.at(-1).toLocaleString('en-US') })
      .waitFor();
    expect(await page.locator('.chip.reverted').count()).toBeGreaterThanOrEqual(1);
    await shot('8-tokens-after-revert');
  });

  it('keeps the tenant boundary: another tenant’s session is not found, in the page and in the API', async () => {
    await page.goto(`${services.session!.url}/ui#/s/${otherSessionId}`);
    await page.getByRole('alert').filter({ hasText: 'Session not found for this tenant' }).waitFor();
    await shot('9-other-tenant');
    expect((await api(ACME_KEY, `/sessions/${otherSessionId}/stats`)).status).toBe(404);
    expect((await api(ACME_KEY, `/sessions/${otherSessionId}/messages`)).status).toBe(404);
    expect((await api(ACME_KEY, `/sessions/${otherSessionId}/tokens`)).status).toBe(404);
    const theirs = (await api(OTHER_KEY, '/sessions')).body;
    expect(theirs.sessions.map((s: any) => s.sessionId)).toEqual([otherSessionId]);
    const ours = (await api(ACME_KEY, `/sessions?q=${otherSessionId}`)).body;
    expect(ours.total).toBe(0);
  });
});
