import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { enc, get } from '../api';
import { ErrorNote, Pager, StageChip, Tokens } from '../components';
import { go, useLoad } from '../hooks';
import { diffStats, sideBySide } from '../lib/diff';
import {
  blocksOver,
  formatTokens,
  messagesLines,
  preview,
  STAGE_REASONS,
  timeAgo,
  timelineRows,
  type TimelineRow,
} from '../lib/messages';
import { rovingKeydown } from '../keyboard';
import { pageAt, pageOf } from '../lib/paging';
import type { BlockDetail, BlockSummary, MessagePage, PositionedMessage } from '../types';

const PAGE = 100;

interface Props {
  sessionId: string;
  version: string;
  blocks: BlockSummary[];
  messageCount: number;
  blockId?: string;
  onRevert: (blockId: string) => void;
  busy: boolean;
}

/**
 * The original messages in order, a page at a time, with the blocks overlaid: a ruler of every block over the
 * whole session, the blocks covering each row, and the selected block with its side-by-side diff.
 */
export function TimelineView({ sessionId, version, blocks, messageCount, blockId, onRevert, busy }: Props) {
  const base = `/sessions/${enc(sessionId)}`;
  const selected = blocks.find((b) => b.id === blockId);
  const [pageIndex, setPageIndex] = useState(0);
  // Selecting a block shows the page where it starts.
  useEffect(() => {
    if (selected) setPageIndex(pageOf(selected.range.from, PAGE, messageCount).index);
  }, [selected?.id]);
  const page = pageAt(pageIndex, PAGE, messageCount);
  // Live: on the last page, new messages are followed (the page moves on when they fill it).
  const onLast = useRef(true);
  const known = useRef(messageCount);
  useEffect(() => {
    // (not on the first load: a session opens at its first page)
    if (known.current > 0 && messageCount > known.current && onLast.current)
      setPageIndex(pageOf(messageCount - 1, PAGE, messageCount).index);
    known.current = messageCount;
  }, [messageCount]);
  onLast.current = page.index === page.count - 1;
  const messages = useLoad(
    () => get<MessagePage>(`${base}/messages?offset=${page.offset}&limit=${PAGE}`),
    [sessionId, page.offset, version],
  );
  const rows = useMemo(() => timelineRows(messages.data?.messages ?? []), [messages.data]);
  // A position jumped to: once its page is shown, its row is marked and takes the focus.
  const [jumped, setJumped] = useState<{ at: number } | undefined>(undefined); // a new object per jump
  const target = jumped?.at;
  const focusTarget = useRef(false); // once per jump: a live reload afterwards leaves the focus where it is
  const jump = (at: number) => {
    focusTarget.current = true;
    setJumped({ at });
  };
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (!focusTarget.current || target === undefined || messages.data?.offset !== page.offset) return;
    focusTarget.current = false;
    const row = rows.find((r) => r.from <= target && target <= r.to);
    const button = row && list.current?.querySelector<HTMLElement>(`li[data-position="${row.from}"] button.fold`);
    if (button) {
      button.focus();
      button.scrollIntoView({ block: 'center' });
    }
  }, [rows, jumped]);
  const select = (id: string | undefined) => go(`/s/${enc(sessionId)}/timeline${id ? `/${enc(id)}` : ''}`);
  /** Closing the block gives the focus back to its entry in the block list. */
  const close = () => {
    const id = blockId;
    select(undefined);
    if (id) document.querySelector<HTMLElement>(`.block-link[data-block-id="${CSS.escape(id)}"]`)?.focus();
  };
  // Escape closes the open block from anywhere on the page (the report form handles its own Escape first). Listened
  // for as the block's panel renders (a layout effect): a plain effect runs a frame later, and an Escape pressed as the
  // block opened was lost (seen in the browser test on a loaded machine).
  useLayoutEffect(() => {
    if (!blockId) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented) {
        e.preventDefault();
        close();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [blockId]);

  return (
    <div class="timeline">
      <Ruler blocks={blocks} messageCount={messageCount} selected={blockId} onSelect={select} />
      {blockId && (
        <BlockPanel
          sessionId={sessionId}
          blockId={blockId}
          version={version}
          onClose={close}
          onRevert={onRevert}
          busy={busy}
        />
      )}
      <div class="split">
        <section class="panel" aria-labelledby="messages-title">
          <h2 id="messages-title">Original messages</h2>
          <Pager
            page={page}
            total={messageCount}
            onPage={setPageIndex}
            label="Message pages"
            jumpLabel="Position"
            onJump={jump}
          />
          <ErrorNote error={messages.error} />
          <ol
            ref={list}
            class="messages"
            aria-busy={messages.loading}
            aria-label={`Original messages ${page.offset}–${Math.min(messageCount, page.offset + PAGE) - 1}`}
            onKeyDown={rovingKeydown('button.fold', 'vertical')}
          >
            {rows.map((row) => (
              <MessageRow
                key={row.key}
                row={row}
                blocks={blocksOver(blocks, row.from, row.to)}
                sessionId={sessionId}
                target={target !== undefined && row.from <= target && target <= row.to}
              />
            ))}
          </ol>
        </section>
        <section class="panel blocks" aria-labelledby="blocks-title">
          <h2 id="blocks-title">Blocks ({blocks.length})</h2>
          {blocks.length === 0 && <p class="muted">No compaction yet: the history is under its threshold.</p>}
          <ul class="block-list" aria-label="Blocks" onKeyDown={rovingKeydown('.block-link', 'vertical')}>
            {blocks.map((b) => (
              <li key={b.id}>
                <a
                  href={`#/s/${enc(sessionId)}/timeline/${enc(b.id)}`}
                  class={`block-link ${b.id === blockId ? 'selected' : ''}`}
                  aria-current={b.id === blockId ? 'true' : undefined}
                  data-block-id={b.id}
                >
                  <StageChip stage={b.stage} active={b.active} />
                  <span>
                    #{b.range.from}–{b.range.to}
                  </span>
                  <span class="num">−{formatTokens(b.tokensSaved)}</span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      </div>
    </div>
  );
}

/** Every block over the whole session, at its position: a map to jump around a long session. */
function Ruler({
  blocks,
  messageCount,
  selected,
  onSelect,
}: {
  blocks: BlockSummary[];
  messageCount: number;
  selected?: string;
  onSelect: (id: string) => void;
}) {
  if (messageCount === 0) return null;
  const pct = (p: number) => `${(p / messageCount) * 100}%`;
  const shown = blocks.filter((b) => b.applicable);
  // One stop in the Tab order (the selected block's first segment, else the first); the arrows move along.
  const stop = shown.find((b) => b.id === selected)?.id ?? shown[0]?.id;
  return (
    <div
      class="ruler"
      role="group"
      aria-label={`Block ruler: blocks over positions 0 to ${messageCount - 1}; arrows move, Enter opens`}
      onKeyDown={rovingKeydown('.ruler-seg', 'horizontal')}
    >
      {shown.flatMap((b, i) =>
        b.edits.map((e, k) => (
          <button
            type="button"
            key={`${b.id}/${k}`}
            class={`ruler-seg stage-${b.stage} ${b.active ? '' : 'reverted'} ${b.id === selected ? 'selected' : ''}`}
            style={{ left: pct(e.from), width: `max(3px, ${pct(e.to - e.from + 1)})`, top: `${(i % 4) * 6 + 4}px` }}
            title={`${b.stage} #${e.from}–${e.to}${b.active ? '' : ' (reverted)'}`}
            aria-label={`${b.stage} block over positions ${e.from} to ${e.to}${b.active ? '' : ', reverted'}`}
            tabIndex={b.id === stop && k === 0 ? 0 : -1}
            onClick={() => onSelect(b.id)}
          />
        )),
      )}
    </div>
  );
}

function MessageRow({
  row,
  blocks,
  sessionId,
  target,
}: {
  row: TimelineRow;
  blocks: BlockSummary[];
  sessionId: string;
  target: boolean;
}) {
  const [open, setOpen] = useState(false);
  const first = row.items[0]!;
  const where = row.from === row.to ? `#${row.from}` : `#${row.from}–${row.to}`;
  const summary =
    row.kind === 'tools'
      ? `${(first.message.toolCalls ?? []).map((c) => `${c.name}(${preview(c.arguments, 60)})`).join(', ')} · ${row.items.length - 1} result${row.items.length === 2 ? '' : 's'}`
      : preview(first.message.content || '(empty)');
  const role = row.kind === 'tools' ? 'tool calls' : first.message.role;
  const hidden = blocks.some((b) => b.active);
  return (
    <li
      class={`msg role-${first.message.role} ${hidden ? 'covered' : ''} ${target ? 'target' : ''}`}
      data-position={row.from}
      aria-current={target ? 'location' : undefined}
    >
      <div class="msg-head">
        <button type="button" class="fold" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span class="pos">{where}</span>
          <span class={`role role-${first.message.role}`}>{role}</span>
          <span class="preview">
            {first.message.content && row.kind === 'tools' ? `${preview(first.message.content, 50)} → ` : ''}
            {summary}
          </span>
        </button>
        <span class="num size">
          <Tokens n={row.tokens} />
        </span>
        <span class="overlay">
          {blocks.map((b) => (
            <a key={b.id} href={`#/s/${enc(sessionId)}/timeline/${enc(b.id)}`} aria-label={`block ${b.stage} ${b.id}`}>
              <StageChip stage={b.stage} active={b.active} />
            </a>
          ))}
        </span>
      </div>
      {open && (
        <div class="msg-body">
          {row.items.map((m) => (
            <MessageBody key={m.position} m={m} />
          ))}
        </div>
      )}
    </li>
  );
}

const SHOW_CHARS = 20_000;

function MessageBody({ m }: { m: PositionedMessage }) {
  const [all, setAll] = useState(false);
  const text = m.message.content;
  return (
    <div class="body-item">
      <div class="muted">
        #{m.position} {m.message.role}
        {m.message.toolName && ` · ${m.message.toolName}`}
        {m.message.isError && ' · error'} · {m.tokens.toLocaleString('en-US')} tokens
      </div>
      {text && <pre>{all ? text : text.slice(0, SHOW_CHARS)}</pre>}
      {text.length > SHOW_CHARS && !all && (
        <button type="button" onClick={() => setAll(true)}>
          Show all {text.length.toLocaleString('en-US')} characters
        </button>
      )}
      {(m.message.toolCalls ?? []).map((c) => (
        <pre key={c.id} class="call">
          → {c.name}({c.arguments})
        </pre>
      ))}
    </div>
  );
}

/** One block: what, why, when, how much, and each edit's originals beside its replacement. */
function BlockPanel({
  sessionId,
  blockId,
  version,
  onClose,
  onRevert,
  busy,
}: {
  sessionId: string;
  blockId: string;
  version: string;
  onClose: () => void;
  onRevert: (id: string) => void;
  busy: boolean;
}) {
  const base = `/sessions/${enc(sessionId)}`;
  const block = useLoad(() => get<BlockDetail>(`${base}/blocks/${enc(blockId)}`), [sessionId, blockId, version]);
  const b = block.data;
  // Opening a block moves the focus to it (a screen reader reads its title); Escape or Close gives it back.
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    title.current?.focus();
    title.current?.scrollIntoView({ block: 'nearest' });
  }, [blockId]);
  return (
    <section class="panel block-panel" aria-labelledby="block-title" data-testid="block-panel">
      <div class="row-between">
        <h2 id="block-title" tabIndex={-1} ref={title}>
          Block {blockId} {b && <StageChip stage={b.stage} active={b.active} />}
        </h2>
        <div class="actions">
          {b?.active && (
            <button type="button" class="danger" disabled={busy} onClick={() => onRevert(blockId)}>
              Revert this block
            </button>
          )}
          <button type="button" onClick={onClose} aria-label="Close the block (Esc)">
            Close
          </button>
        </div>
      </div>
      <ErrorNote error={block.error} />
      {b && (
        <>
          <dl class="facts">
            <div class="wide">
              <dt>Why</dt>
              <dd>
                {STAGE_REASONS[b.stage] ?? b.stage}; decided when the history reached position {b.basedOnPosition}
              </dd>
            </div>
            <div>
              <dt>Covers</dt>
              <dd>
                #{b.range.from}–{b.range.to} ({b.edits.length} edit{b.edits.length === 1 ? '' : 's'})
              </dd>
            </div>
            <div>
              <dt>Tokens saved</dt>
              <dd data-testid="tokens-saved">
                {b.tokensSaved.toLocaleString('en-US')}{' '}
                <span class="muted">
                  ({b.tokensBefore.toLocaleString('en-US')} → {b.tokensAfter.toLocaleString('en-US')})
                </span>
              </dd>
            </div>
            <div>
              <dt>Made</dt>
              <dd>
                <time dateTime={b.createdAt} title={b.createdAt}>
                  {timeAgo(b.createdAt, Date.now())}
                </time>{' '}
                by {b.engineVersion}
              </dd>
            </div>
            <div>
              <dt>State</dt>
              <dd data-testid="block-state">
                {b.active ? 'active' : `reverted ${b.revertedAt ? timeAgo(b.revertedAt, Date.now()) : ''}`}
              </dd>
            </div>
          </dl>
          {b.edits.map((e, k) => (
            <EditDiff key={`${e.from}-${k}`} sessionId={sessionId} edit={e} index={k} count={b.edits.length} />
          ))}
        </>
      )}
    </section>
  );
}

const ORIGINALS_PAGE = 200;
const DIFF_ROWS = 600;

function EditDiff({
  sessionId,
  edit,
  index,
  count,
}: {
  sessionId: string;
  edit: BlockDetail['edits'][number];
  index: number;
  count: number;
}) {
  const [open, setOpen] = useState(index < 3);
  const [originalsPage, setOriginalsPage] = useState(0);
  const [rowsShown, setRowsShown] = useState(DIFF_ROWS);
  const n = edit.to - edit.from + 1;
  const page = pageAt(originalsPage, ORIGINALS_PAGE, n);
  const originals = useLoad(
    () =>
      open
        ? get<MessagePage>(
            `/sessions/${enc(sessionId)}/messages?offset=${edit.from + page.offset}&limit=${Math.min(ORIGINALS_PAGE, n - page.offset)}`,
          )
        : Promise.resolve(undefined),
    [sessionId, edit.from, page.offset, open],
  );
  const rows = useMemo(() => {
    if (!originals.data) return [];
    const left = messagesLines(originals.data.messages.map((m) => ({ message: m.message, position: m.position })));
    // The replacement is shown whole beside each page of the originals.
    const right = messagesLines(edit.replacement.map((message) => ({ message })));
    return sideBySide(left, right);
  }, [originals.data, edit]);
  const stats = diffStats(rows);
  return (
    <section class="edit" aria-label={`Edit ${index + 1} of ${count}`}>
      <h3>
        <button type="button" class="fold" aria-expanded={open} onClick={() => setOpen(!open)}>
          Edit {index + 1}/{count}: #{edit.from}–{edit.to} · {n} message{n === 1 ? '' : 's'},{' '}
          {edit.originalTokens.toLocaleString('en-US')} tokens → {edit.replacement.length} message
          {edit.replacement.length === 1 ? '' : 's'}, {edit.replacementTokens.toLocaleString('en-US')} tokens
        </button>
      </h3>
      {open && (
        <>
          {n > ORIGINALS_PAGE && (
            <Pager page={page} total={n} onPage={setOriginalsPage} label={`Originals of edit ${index + 1}`} />
          )}
          <ErrorNote error={originals.error} />
          <p class="muted diff-legend">
            <span class="removed-key">{stats.removed} lines only in the originals</span> ·{' '}
            <span class="added-key">{stats.added} lines only in the replacement</span> · {stats.same} the same
          </p>
          <table class="diff" data-testid="diff">
            <thead>
              <tr>
                <th scope="col">What it replaced (originals)</th>
                <th scope="col">What replaced it (the model sees)</th>
              </tr>
            </thead>
            <tbody>
              {rows.slice(0, rowsShown).map((r, i) => (
                <tr key={i}>
                  <td class={`diff-left ${r.left?.changed ? 'removed' : ''}`}>{r.left?.text ?? ''}</td>
                  <td class={`diff-right ${r.right?.changed ? 'added' : ''}`}>{r.right?.text ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length > rowsShown && (
            <button type="button" onClick={() => setRowsShown(rowsShown + DIFF_ROWS)}>
              Show more ({(rows.length - rowsShown).toLocaleString('en-US')} rows left)
            </button>
          )}
        </>
      )}
    </section>
  );
}
