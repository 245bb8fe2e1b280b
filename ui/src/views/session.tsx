import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, enc, get, post } from '../api';
import { ErrorNote, Tokens, UsageBar } from '../components';
import { go, useLiveStats, useLoad } from '../hooks';
import { rovingKeydown } from '../keyboard';
import { formatTokens } from '../lib/messages';
import type { BlockSummary, Stats } from '../types';
import { EffectiveView } from './effective';
import { TimelineView } from './timeline';
import { TokensView } from './tokens';

export type Tab = 'timeline' | 'effective' | 'tokens';

const TABS: { id: Tab; label: string }[] = [
  { id: 'timeline', label: 'Timeline' },
  { id: 'effective', label: 'Effective history' },
  { id: 'tokens', label: 'Tokens over time' },
];

/** The outcome of an action, announced to screen readers. */
export interface ActionResult {
  ok: boolean;
  text: string;
}

/**
 * One session: its numbers, its actions, and three tabs. Live while an agent runs (`useLiveStats`: a new
 * message shows as soon as it is projected, a block within 3 s); when the projected offset or the blocks
 * change, the open tab reloads.
 */
export function SessionView({ sessionId, tab, blockId }: { sessionId: string; tab: Tab; blockId?: string }) {
  const base = `/sessions/${enc(sessionId)}`;
  const [live, setLive] = useState(true);
  const stats = useLiveStats<Stats>(base, live);
  const blocks = useLoad(() => get<{ blocks: BlockSummary[] }>(`${base}/blocks`), [sessionId]);
  const [result, setResult] = useState<ActionResult | undefined>();
  const [busy, setBusy] = useState(false);
  const [overflowOpen, setOverflowOpen] = useState(false);
  const overflowText = useRef<HTMLTextAreaElement>(null);
  const overflowButton = useRef<HTMLButtonElement>(null);
  // The report form takes the focus when it opens; Escape closes it and gives the focus back to its button.
  useEffect(() => {
    if (overflowOpen) overflowText.current?.focus();
  }, [overflowOpen]);
  const closeOverflow = () => {
    setOverflowOpen(false);
    overflowButton.current?.focus();
  };

  // What the views depend on: a new message or a block created or reverted changes it.
  const s = stats.data;
  const version = s ? `${s.projectedOffset}/${s.blocks.total}/${s.blocks.active}/${s.blocks.pending}` : '';
  // A change reloads the blocks and is announced beside the Live switch (politely, for screen readers too).
  const counts = useRef<{ messages: number; blocks: number } | undefined>(undefined);
  const [news, setNews] = useState('');
  useEffect(() => {
    if (!s) return;
    const before = counts.current;
    counts.current = { messages: s.messageCount, blocks: s.blocks.total };
    if (!before) return;
    blocks.reload();
    const plural = (n: number, what: string) => `${n.toLocaleString('en-US')} new ${what}${n === 1 ? '' : 's'}`;
    const parts = [
      ...(s.messageCount > before.messages ? [plural(s.messageCount - before.messages, 'message')] : []),
      ...(s.blocks.total > before.blocks ? [plural(s.blocks.total - before.blocks, 'block')] : []),
    ];
    if (parts.length > 0) setNews(`${parts.join(', ')} at ${new Date().toLocaleTimeString('en-GB')}`);
  }, [version]);

  const act = async (label: string, run: () => Promise<unknown>, describe: (body: any) => string) => {
    setBusy(true);
    setResult(undefined);
    try {
      const body = await run();
      setResult({ ok: true, text: `${label}: ${describe(body)}` });
    } catch (error) {
      const body = error instanceof ApiError ? (error.body as any) : undefined;
      setResult({
        ok: false,
        text: `${label} refused: ${(error as Error).message}${body?.classification?.kind ? ` (${body.classification.kind})` : ''}`,
      });
    } finally {
      setBusy(false);
      stats.reload();
    }
  };

  /** Reverts a block, then polls until the block stream shows it reverted (the compaction service applies it). */
  const revert = (id: string) =>
    act(
      `Revert ${id}`,
      async () => {
        const accepted = await post<{ alreadyReverted?: boolean }>(`${base}/blocks/${enc(id)}/revert`);
        for (let i = 0; i < 60; i++) {
          const listed = await get<{ blocks: BlockSummary[] }>(`${base}/blocks`);
          if (listed.blocks.find((b) => b.id === id)?.active === false) return { ...accepted, applied: true };
          await new Promise((r) => setTimeout(r, 500));
        }
        return { ...accepted, applied: false };
      },
      (b) =>
        b.applied
          ? 'the block is reverted: the messages it hid are back in the effective history'
          : 'accepted; the block is not shown reverted yet (the compaction service applies it)',
    ).then(() => blocks.reload());

  const notFound = stats.error instanceof ApiError && stats.error.status === 404;
  if (notFound) {
    return (
      <section class="panel">
        <h1>Session {sessionId}</h1>
        <p class="error" role="alert">
          Session not found for this tenant.
        </p>
        <a href="#/">All sessions</a>
      </section>
    );
  }

  return (
    <>
      <section class="panel session-head" aria-labelledby="session-title">
        <div class="row-between">
          <div>
            <a href="#/" class="muted">
              ← Sessions
            </a>
            <h1 id="session-title">{sessionId}</h1>
          </div>
          <div class="actions">
            <label class="live">
              <input type="checkbox" checked={live} onChange={(e) => setLive((e.target as HTMLInputElement).checked)} />{' '}
              Live
            </label>
            <span class="muted live-news" aria-live="polite" data-testid="live-news">
              {live ? news : 'paused'}
            </span>
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                act(
                  'Compaction request',
                  () => post(`${base}/compactions`),
                  (b) => `accepted (waitToken ${b.waitToken})`,
                )
              }
            >
              Request compaction
            </button>
            <button
              type="button"
              ref={overflowButton}
              disabled={busy}
              aria-expanded={overflowOpen}
              aria-controls="overflow-form"
              onClick={() => (overflowOpen ? closeOverflow() : setOverflowOpen(true))}
            >
              Report overflow…
            </button>
          </div>
        </div>
        {overflowOpen && (
          <form
            id="overflow-form"
            class="overflow"
            aria-label="Report an overflow"
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault();
                closeOverflow();
              }
            }}
            onSubmit={(e) => {
              e.preventDefault();
              const errorText = overflowText.current?.value ?? '';
              void act(
                'Overflow report',
                () => post(`${base}/overflow`, { errorText }),
                (b) =>
                  `accepted as ${b.kind}${b.actualTokens ? ` (${b.actualTokens} > ${b.limitTokens} tokens)` : ''}: an emergency compaction is requested (waitToken ${b.waitToken})`,
              );
            }}
          >
            <label>
              The provider's error text
              <textarea ref={overflowText} rows={2} required>
                prompt is too long: 210000 tokens {'>'} 200000 maximum
              </textarea>
            </label>
            <button type="submit" disabled={busy}>
              Send report
            </button>
          </form>
        )}
        <div class="status" role="status" aria-live="polite">
          {busy && <span class="muted">Working…</span>}
          {result && <span class={result.ok ? 'ok-text' : 'error'}>{result.text}</span>}
        </div>
        <ErrorNote error={stats.error} />
        {s && (
          <dl class="facts">
            <div>
              <dt>Messages</dt>
              <dd>
                {s.messageCount.toLocaleString('en-US')}{' '}
                <span class="muted">({s.effectiveMessageCount.toLocaleString('en-US')} effective)</span>
              </dd>
            </div>
            <div>
              <dt>Raw tokens</dt>
              <dd>
                <Tokens n={s.rawTokens} />
              </dd>
            </div>
            <div>
              <dt>Effective tokens</dt>
              <dd data-testid="effective-tokens">
                <Tokens n={s.effectiveTokens} />
              </dd>
            </div>
            <div>
              <dt>Budget</dt>
              <dd>
                {formatTokens(s.historyBudget)} <UsageBar ratio={s.usageRatio} />
              </dd>
            </div>
            <div>
              <dt>Blocks</dt>
              <dd>
                {s.blocks.active} active, {s.blocks.reverted} reverted
                {s.blocks.pending > 0 && `, ${s.blocks.pending} pending`}
              </dd>
            </div>
            {!s.fits && s.reason && (
              <div class="wide">
                <dt>Over the budget</dt>
                <dd class="error">{s.reason}</dd>
              </div>
            )}
          </dl>
        )}
      </section>
      {/* Tabs: one stop in the Tab order; the arrows, Home and End move between them and open the one reached. */}
      <nav
        class="tabs"
        role="tablist"
        aria-label="Session views"
        onKeyDown={rovingKeydown('[role=tab]', 'horizontal', (el) => go(`/s/${enc(sessionId)}/${el.dataset.tab}`))}
      >
        {TABS.map((t) => (
          <a
            key={t.id}
            id={`tab-${t.id}`}
            role="tab"
            data-tab={t.id}
            aria-selected={tab === t.id}
            aria-controls="tab-panel"
            tabIndex={tab === t.id ? 0 : -1}
            class={tab === t.id ? 'tab active' : 'tab'}
            href={`#/s/${enc(sessionId)}/${t.id}`}
            onKeyDown={(e) => {
              if (e.key === ' ') {
                e.preventDefault();
                go(`/s/${enc(sessionId)}/${t.id}`);
              }
            }}
          >
            {t.label}
          </a>
        ))}
      </nav>
      <p class="muted keys-help" id="keys-help">
        Keyboard: ← → between the tabs and along the block ruler; ↑ ↓ through the messages and the blocks; Enter opens;
        Esc closes the block or the report form.
      </p>
      <div id="tab-panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === 'timeline' && (
          <TimelineView
            sessionId={sessionId}
            version={version}
            blocks={blocks.data?.blocks ?? []}
            messageCount={s?.messageCount ?? 0}
            blockId={blockId}
            onRevert={revert}
            busy={busy}
          />
        )}
        {tab === 'effective' && <EffectiveView sessionId={sessionId} version={version} />}
        {tab === 'tokens' && <TokensView sessionId={sessionId} version={version} stats={s} />}
      </div>
    </>
  );
}
