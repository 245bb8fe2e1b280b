import type { ComponentChildren } from 'preact';
import { formatPercent, formatTokens } from './lib/messages';
import { pageAt, pageLabel, type Page } from './lib/paging';

export function ErrorNote({ error }: { error?: Error }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error.message}
    </p>
  );
}

/** A usage bar: effective tokens against the budget (over 100 % is red). */
export function UsageBar({ ratio, label }: { ratio: number; label?: string }) {
  const pct = Number.isFinite(ratio) && ratio >= 0 ? Math.min(1, ratio) * 100 : 100;
  const cls = !Number.isFinite(ratio) || ratio > 1 ? 'over' : ratio > 0.85 ? 'high' : 'ok';
  return (
    <span class="usage" title={label ?? `${formatPercent(ratio)} of the budget`}>
      <span class="usage-track" aria-hidden="true">
        <span class={`usage-fill ${cls}`} style={{ width: `${pct}%` }} />
      </span>
      <span class="usage-text">{formatPercent(ratio)}</span>
    </span>
  );
}

export function Tokens({ n }: { n: number }) {
  return (
    <span class="num" title={`${n.toLocaleString('en-US')} tokens`}>
      {formatTokens(n)}
    </span>
  );
}

export function StageChip({ stage, active = true }: { stage: string; active?: boolean }) {
  return (
    <span class={`chip stage-${stage} ${active ? '' : 'reverted'}`}>
      {stage}
      {active ? '' : ' (reverted)'}
    </span>
  );
}

/** First / previous / next / last, and a jump to a position (1-based for people). */
export function Pager({
  page,
  total,
  onPage,
  label,
  jumpLabel,
  onJump,
}: {
  page: Page;
  total: number;
  onPage: (index: number) => void;
  label: string;
  jumpLabel?: string;
  /** Told the position jumped to (after `onPage`). */
  onJump?: (at: number) => void;
}) {
  const size = page.limit;
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" onClick={() => onPage(0)} disabled={page.index === 0} aria-label="First page">
        «
      </button>
      <button
        type="button"
        onClick={() => onPage(page.index - 1)}
        disabled={page.index === 0}
        aria-label="Previous page"
      >
        ‹
      </button>
      <span class="pager-label" aria-live="polite">
        {pageLabel(page, total)}
      </span>
      <button
        type="button"
        onClick={() => onPage(page.index + 1)}
        disabled={page.index >= page.count - 1}
        aria-label="Next page"
      >
        ›
      </button>
      <button
        type="button"
        onClick={() => onPage(page.count - 1)}
        disabled={page.index >= page.count - 1}
        aria-label="Last page"
      >
        »
      </button>
      {jumpLabel && (
        <form
          class="jump"
          onSubmit={(e) => {
            e.preventDefault();
            const input = (e.currentTarget as HTMLFormElement).elements.namedItem('at') as HTMLInputElement;
            const at = Number(input.value);
            if (!Number.isInteger(at)) return;
            onPage(pageAt(Math.floor(at / size), size, total).index);
            onJump?.(Math.min(Math.max(0, at), total - 1));
          }}
        >
          <label>
            {jumpLabel} <input name="at" type="number" min={0} max={Math.max(0, total - 1)} />
          </label>
          <button type="submit">Go</button>
        </form>
      )}
    </nav>
  );
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
