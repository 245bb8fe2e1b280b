import { useEffect, useMemo, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { enc, get } from '../api';
import { ErrorNote, StageChip } from '../components';
import { useLoad } from '../hooks';
import { formatTokens } from '../lib/messages';
import { sampleIndexes } from '../lib/paging';
import type { Stats, TokenSeries } from '../types';

/** Points drawn at most: a 10,000-message session is sampled, every compaction step kept. */
const MAX_POINTS = 1500;

const STAGE_COLORS: Record<string, string> = {
  truncate: '#b45309',
  prune: '#0e7490',
  dedupe: '#7c3aed',
  'split-turn': '#be185d',
  summary: '#15803d',
  digest: '#4d7c0f',
  'sliding-window': '#1d4ed8',
  'keep-within-budget': '#b91c1c',
  emergency: '#dc2626',
};

/** Raw, effective and budget by position, the compactions marked; the tokens saved by stage. */
export function TokensView({ sessionId, version, stats }: { sessionId: string; version: string; stats?: Stats }) {
  const series = useLoad(() => get<TokenSeries>(`/sessions/${enc(sessionId)}/tokens`), [sessionId, version]);
  const s = series.data;
  const saved = Object.entries(stats?.savedByStage ?? {}).sort((a, b) => b[1] - a[1]);
  const maxSaved = Math.max(1, ...saved.map(([, v]) => v));
  return (
    <>
      <section class="panel" aria-labelledby="tokens-title">
        <h2 id="tokens-title">Tokens over time</h2>
        <ErrorNote error={series.error} />
        {s && s.positions > 0 && <Chart series={s} />}
        {s && (
          <p class="muted" data-testid="chart-summary">
            At the last position: raw {s.raw.at(-1)?.toLocaleString('en-US') ?? 0}, effective{' '}
            <span data-testid="chart-effective">{s.effective.at(-1)?.toLocaleString('en-US') ?? 0}</span>, budget{' '}
            {s.budget.toLocaleString('en-US')} tokens; {s.markers.filter((m) => m.active).length} active and{' '}
            {s.markers.filter((m) => !m.active).length} reverted compactions marked.
          </p>
        )}
      </section>
      <div class="split even">
        <section class="panel" aria-labelledby="saved-title">
          <h2 id="saved-title">Tokens saved by stage</h2>
          {saved.length === 0 && <p class="muted">Nothing saved: no active block.</p>}
          <ul class="bars">
            {saved.map(([stage, v]) => (
              <li key={stage}>
                <StageChip stage={stage} />
                <span class="bar" aria-hidden="true">
                  <span style={{ width: `${(v / maxSaved) * 100}%`, background: STAGE_COLORS[stage] ?? '#555' }} />
                </span>
                <span class="num">{v.toLocaleString('en-US')}</span>
              </li>
            ))}
          </ul>
        </section>
        {s && (
          <section class="panel" aria-labelledby="compactions-title">
            <h2 id="compactions-title">Compactions ({s.markers.length})</h2>
            <table class="grid">
              <thead>
                <tr>
                  <th scope="col" class="num">
                    At
                  </th>
                  <th scope="col">Stage</th>
                  <th scope="col" class="num">
                    Saved
                  </th>
                </tr>
              </thead>
              <tbody>
                {s.markers.map((m) => (
                  <tr key={m.blockId}>
                    <td class="num">#{m.position}</td>
                    <td>
                      <a href={`#/s/${enc(sessionId)}/timeline/${enc(m.blockId)}`}>
                        <StageChip stage={m.stage} active={m.active} />
                      </a>
                    </td>
                    <td class="num">{formatTokens(m.tokensSaved)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        )}
      </div>
    </>
  );
}

function Chart({ series }: { series: TokenSeries }) {
  const el = useRef<HTMLDivElement>(null);
  const data = useMemo(() => {
    const picked = sampleIndexes(
      series.positions,
      MAX_POINTS,
      series.markers.map((m) => m.position),
    );
    return [
      picked,
      picked.map((i) => series.raw[i]!),
      picked.map((i) => series.effective[i]!),
      picked.map(() => series.budget),
      picked.map(() => series.threshold),
    ] as uPlot.AlignedData;
  }, [series]);

  useEffect(() => {
    const host = el.current;
    if (!host) return;
    const markers = series.markers;
    const plot = new uPlot(
      {
        width: Math.max(320, host.clientWidth),
        height: 320,
        scales: { x: { time: false } },
        axes: [
          { label: 'message position' },
          { label: 'tokens', size: 70, values: (_u, v) => v.map((x) => formatTokens(x)) },
        ],
        series: [
          { label: 'position' },
          { label: 'raw', stroke: '#9ca3af', width: 2 },
          { label: 'effective', stroke: '#2563eb', width: 2, fill: 'rgba(37,99,235,0.08)' },
          { label: 'budget', stroke: '#dc2626', width: 1.5, dash: [6, 4] },
          { label: 'threshold', stroke: '#f59e0b', width: 1, dash: [2, 4] },
        ],
        hooks: {
          // The compactions: a vertical line at each block's position (dashed and grey when reverted).
          draw: [
            (u) => {
              const ctx = u.ctx;
              ctx.save();
              for (const m of markers) {
                const x = Math.round(u.valToPos(m.position, 'x', true));
                ctx.beginPath();
                ctx.strokeStyle = m.active ? (STAGE_COLORS[m.stage] ?? '#555') : '#9ca3af';
                ctx.lineWidth = m.active ? 1.5 : 1;
                ctx.setLineDash(m.active ? [] : [4, 4]);
                ctx.moveTo(x, u.bbox.top);
                ctx.lineTo(x, u.bbox.top + u.bbox.height);
                ctx.stroke();
              }
              ctx.restore();
            },
          ],
        },
      },
      data,
      host,
    );
    const resize = () => plot.setSize({ width: Math.max(320, host.clientWidth), height: 320 });
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [data]);

  return (
    <figure class="chart">
      <div
        ref={el}
        data-testid="chart"
        role="img"
        aria-label={`Tokens by position: raw up to ${formatTokens(series.raw.at(-1) ?? 0)}, effective ${formatTokens(series.effective.at(-1) ?? 0)}, budget ${formatTokens(series.budget)}; ${series.markers.length} compactions marked`}
      />
      <figcaption class="muted">
        Raw: every original message; effective: with the blocks made by then that are active now; vertical lines: the
        compactions (dashed: reverted). The compactions table lists the same.
      </figcaption>
    </figure>
  );
}
