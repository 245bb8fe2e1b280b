import { useState } from 'preact/hooks';
import { enc, get } from '../api';
import { ErrorNote, Pager, StageChip, Tokens } from '../components';
import { useLoad } from '../hooks';
import { formatPercent, formatTokens, preview } from '../lib/messages';
import { pageAt } from '../lib/paging';
import type { EffectivePage } from '../types';

const PAGE = 100;
const FORMATS = [
  { id: 'openai', label: 'OpenAI chat' },
  { id: 'anthropic', label: 'Anthropic messages' },
  { id: 'generic', label: 'Generic (transcript)' },
];

/** The effective history as the model sees it, in a provider's format, entry by entry with its tokens. */
export function EffectiveView({ sessionId, version }: { sessionId: string; version: string }) {
  const [format, setFormat] = useState('openai');
  const [pageIndex, setPageIndex] = useState(0);
  const [total, setTotal] = useState(0);
  const page = pageAt(pageIndex, PAGE, total);
  const data = useLoad(
    () =>
      get<EffectivePage>(
        `/sessions/${enc(sessionId)}/effective?format=${format}&offset=${page.offset}&limit=${PAGE}`,
      ).then((d) => {
        setTotal(d.total);
        return d;
      }),
    [sessionId, format, page.offset, version],
  );
  const d = data.data;
  return (
    <section class="panel" aria-labelledby="effective-title">
      <div class="row-between">
        <h2 id="effective-title">Effective history</h2>
        <label>
          Format{' '}
          <select value={format} onChange={(e) => setFormat((e.target as HTMLSelectElement).value)}>
            {FORMATS.map((f) => (
              <option key={f.id} value={f.id}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNote error={data.error} />
      {d && (
        <p class="summary" data-testid="effective-summary">
          <strong>{d.total.toLocaleString('en-US')}</strong> entries ({d.wireMessageCount.toLocaleString('en-US')}{' '}
          {format} messages), <strong>{d.tokens.toLocaleString('en-US')}</strong> tokens of a {formatTokens(d.budget)}{' '}
          budget ({formatPercent(d.tokens / d.budget)})
          {!d.fits && <span class="error"> — over the budget: GET …/history compacts on read</span>}
        </p>
      )}
      <Pager page={page} total={total} onPage={setPageIndex} label="Effective history pages" />
      {d && (
        <table class="grid effective">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">From</th>
              <th scope="col">Role</th>
              <th scope="col" class="num">
                Tokens
              </th>
              <th scope="col">As sent ({format})</th>
            </tr>
          </thead>
          <tbody>
            {d.entries.map((e) => (
              <tr key={e.index} class={e.blockId ? 'replacement' : ''}>
                <td class="num">{e.index}</td>
                <td>
                  {e.blockId ? (
                    <a href={`#/s/${enc(sessionId)}/timeline/${enc(e.blockId)}`}>
                      <StageChip stage={e.stage ?? 'block'} /> #{e.from}–{e.to}
                    </a>
                  ) : (
                    <span>original #{e.from}</span>
                  )}
                </td>
                <td>{e.message.role}</td>
                <td class="num">
                  <Tokens n={e.tokens} />
                </td>
                <td>
                  <details>
                    <summary>
                      {preview(
                        e.message.content || (e.message.toolCalls ?? []).map((c) => `→ ${c.name}`).join(' '),
                        100,
                      ) || '(empty)'}
                    </summary>
                    <pre>{JSON.stringify(e.wire, null, 2)}</pre>
                  </details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
