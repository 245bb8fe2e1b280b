import { useState } from 'preact/hooks';
import { enc, get } from '../api';
import { ErrorNote, Pager, Tokens, UsageBar } from '../components';
import { useInterval, useLoad } from '../hooks';
import { timeAgo } from '../lib/messages';
import { pageAt } from '../lib/paging';
import type { SessionList } from '../types';

const PAGE = 20;

/**
 * The tenant's sessions, most recent activity first; search by id; refreshed every 5 s (a large session whose
 * stats the service is still computing shows them at a later refresh).
 */
export function SessionsView() {
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [pageIndex, setPageIndex] = useState(0);
  const list = useLoad(
    () => get<SessionList>(`/sessions?limit=${PAGE}&offset=${pageIndex * PAGE}${query ? `&q=${enc(query)}` : ''}`),
    [query, pageIndex],
  );
  useInterval(list.reload, 5000);
  const now = Date.now();
  const total = list.data?.total ?? 0;
  return (
    <section class="panel" aria-labelledby="sessions-title">
      <div class="row-between">
        <h1 id="sessions-title">Sessions</h1>
        <form
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            setPageIndex(0);
            setQuery(q.trim());
          }}
        >
          <label>
            Session id contains{' '}
            <input
              name="q"
              value={q}
              pattern="[A-Za-z0-9_:@\-]*"
              onInput={(e) => setQ((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit">Search</button>
        </form>
      </div>
      <ErrorNote error={list.error} />
      {list.data && list.data.sessions.length === 0 && (
        <p class="muted">
          {query
            ? `No session id contains “${query}”.`
            : 'No sessions yet for this tenant: publish messages to /v1/sessions/<id>/messages.'}
        </p>
      )}
      {list.data && list.data.sessions.length > 0 && (
        <table class="grid sessions">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Model</th>
              <th scope="col" class="num">
                Messages
              </th>
              <th scope="col" class="num">
                Raw tokens
              </th>
              <th scope="col" class="num">
                Effective tokens
              </th>
              <th scope="col">Budget use</th>
              <th scope="col" class="num">
                Blocks
              </th>
              <th scope="col">Last activity</th>
            </tr>
          </thead>
          <tbody>
            {list.data.sessions.map((s) => (
              <tr key={s.sessionId}>
                <th scope="row">
                  <a href={`#/s/${enc(s.sessionId)}`}>{s.sessionId}</a>
                </th>
                <td>{[s.provider, s.model].filter(Boolean).join(' · ') || '—'}</td>
                <td class="num">{s.messageCount.toLocaleString('en-US')}</td>
                {s.statsPending || !s.blocks ? (
                  <td colSpan={4} class="muted" data-testid="stats-pending">
                    computing the tokens of {s.messageCount.toLocaleString('en-US')} messages…
                  </td>
                ) : (
                  <>
                    <td class="num">
                      <Tokens n={s.rawTokens ?? 0} />
                    </td>
                    <td class="num">
                      <Tokens n={s.effectiveTokens ?? 0} />
                    </td>
                    <td>
                      <UsageBar
                        ratio={s.usageRatio ?? 0}
                        label={`${(s.effectiveTokens ?? 0).toLocaleString('en-US')} of ${(s.historyBudget ?? 0).toLocaleString('en-US')} tokens`}
                      />
                    </td>
                    <td class="num" title={`${s.blocks.active} active, ${s.blocks.reverted} reverted`}>
                      {s.blocks.active}
                      {s.blocks.reverted > 0 && <span class="muted"> +{s.blocks.reverted} reverted</span>}
                    </td>
                  </>
                )}
                <td>
                  <time dateTime={s.updatedAt} title={s.updatedAt}>
                    {timeAgo(s.updatedAt, now)}
                  </time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {total > PAGE && (
        <Pager page={pageAt(pageIndex, PAGE, total)} total={total} onPage={setPageIndex} label="Sessions pages" />
      )}
    </section>
  );
}
