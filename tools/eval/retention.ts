/**
 * Future-use retention: does the compacted history still hold what the rest of the session reuses?
 *
 * For each session of at least `minMessages` messages: cut it at about half (never between a call and its
 * results), replay the first half through the engine with a history budget of `budgetRatio` × its own size
 * (the replay tool's forced-budget mode), extract facts mechanically from the unseen second half — file
 * paths and names, backticked identifiers, error/exception names, test names, shell commands, numbers with
 * units, URLs —, keep those that also occur in the original first half (the agent could only know them from
 * there), and measure the share of them present, as substrings, in the compacted first half. Beside it: the
 * share of the first half's characters the compacted view keeps. Pure: same input, same report.
 *
 * And what went wrong: the calls of the first half whose result failed (a flagged error, an error line, a non-zero
 * exit, failed tests — the engine's own reading), and the share whose failure line the compacted first half still
 * states. A view that calls a failed command "ok", or drops what failed, loses it.
 *
 * And what still runs: the background launches of the first half not collected within it (a sub-agent, a `cmd &`,
 * a background shell — the engine's own reading), and the share of them whose handle (an id, else the output file's
 * name) the compacted first half still states. Without it nothing can collect the work.
 *
 * And the commits the first half made (git's `[branch 1a2b3c4] subject` line in a git command's result), and the
 * share whose hash the compacted first half still states: what a later `git show`, `revert` or `rebase` names.
 */
import {
  failureOf,
  openLaunchesOf,
  parseArguments,
  toolActivity,
  type ChatMessage,
  type SummaryRequest,
  type ToolActivity,
} from '@ctxledger/context-engine';
import { parseTranscripts, type TranscriptSession } from '../replay/input';
import { replaySession, type ReplayOptions } from '../replay/replay';

export const FACT_KINDS = ['path', 'identifier', 'error', 'test', 'command', 'quantity', 'url'] as const;
export type FactKind = (typeof FACT_KINDS)[number];

export interface Fact {
  readonly kind: FactKind;
  readonly text: string;
}

export interface EvalOptions extends ReplayOptions {
  /** Sessions with fewer messages are skipped (default 10). */
  readonly minMessages?: number;
  /**
   * Where to cut, as shares of the messages (default [0.5]). Several cuts average out where in the compaction
   * cycle (between the target and the trigger) the cut happens to fall.
   */
  readonly cuts?: readonly number[];
  /**
   * Make each session one long user turn (every user message after the first dropped), the shape of Claude Code
   * sessions, where only split-turn notes can condense: a stress test of the in-turn path.
   */
  readonly oneTurn?: boolean;
}

export interface SessionRetention {
  readonly id: string;
  readonly messages: number;
  /** Messages in the first half (the cut). */
  readonly cut: number;
  /** Facts of the second half that also occur in the first half. */
  readonly facts: number;
  readonly retained: number;
  /** retained / facts; null when the second half reuses no fact of the first. */
  readonly retention: number | null;
  readonly byKind: Partial<Record<FactKind, { facts: number; retained: number }>>;
  readonly originalChars: number;
  readonly compactedChars: number;
  /** compactedChars / originalChars. */
  readonly charsKept: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly fits: boolean;
  /** Up to 25 facts the compacted first half lost, for inspection. */
  readonly missed: readonly Fact[];
  /** Distinct failures of the first half's calls (their lines), and how many the compacted first half states. */
  readonly failures: number;
  readonly failuresKept: number;
  /** Up to 10 failure lines the compacted first half lost. */
  readonly failuresMissed: readonly string[];
  /** Launches of the first half still running at the cut, and how many the compacted first half still names. */
  readonly launches: number;
  readonly launchesKept: number;
  /** Up to 10 launches the compacted first half lost (their handles). */
  readonly launchesMissed: readonly string[];
  /** Commits the first half made, and how many of their hashes the compacted first half still states. */
  readonly commits: number;
  readonly commitsKept: number;
  /** With digest summaries on (`EvalOptions.digestSummaries`): asked, superseding a note or marker, rejected. */
  readonly digestSummaries?: { readonly requested: number; readonly superseded: number; readonly rejected: number };
}

export interface RetentionTotals {
  readonly sessions: number;
  /** Sessions with at least one reused fact (the ones the averages are over). */
  readonly scored: number;
  readonly facts: number;
  readonly retained: number;
  /** Σ retained / Σ facts. */
  readonly retention: number;
  /** Mean of the per-session retentions. */
  readonly meanRetention: number;
  readonly originalChars: number;
  readonly compactedChars: number;
  readonly charsKept: number;
  /** The largest per-session charsKept. */
  readonly maxCharsKept: number;
  readonly byKind: Partial<Record<FactKind, { facts: number; retained: number }>>;
  readonly failures: number;
  readonly failuresKept: number;
  readonly launches: number;
  readonly launchesKept: number;
  readonly commits: number;
  readonly commitsKept: number;
}

export interface RetentionReport {
  readonly options: EvalOptions;
  readonly sessions: SessionRetention[];
  readonly skipped: { readonly id: string; readonly reason: string }[];
  readonly totals: RetentionTotals;
}

/** First index of the second part: `share` of the messages, moved forward past any tool results. */
export function cutIndex(messages: readonly ChatMessage[], share = 0.5): number {
  let cut = Math.ceil(messages.length * share);
  while (cut < messages.length && messages[cut]!.role === 'tool') cut++;
  return cut;
}

/** The text of a message as an agent sees it: content, and each call's name and argument values. */
export function messageText(m: ChatMessage): string {
  const parts = [m.content];
  for (const c of m.toolCalls ?? []) {
    parts.push(c.name);
    const args = parseArguments(c.arguments);
    if (!args) parts.push(c.arguments);
    else for (const v of Object.values(args)) parts.push(typeof v === 'string' ? v : JSON.stringify(v));
  }
  return parts.join('\n');
}

const FILE_EXT =
  'ts|tsx|js|jsx|mjs|cjs|json|jsonl|py|pyi|ipynb|md|mdx|rst|txt|ya?ml|toml|ini|cfg|conf|env|lock|rs|go|mod|java|kt|kts|scala|c|h|cc|cpp|hpp|cs|rb|php|sh|bash|zsh|ps1|css|scss|sass|less|html?|xml|svg|sql|proto|graphql|gql|swift|m|mm|vue|svelte|lua|pl|r|jl|ex|exs|erl|hs|ml|dart|gradle|tf|dockerfile|csv|tsv|log|patch|diff|wasm|bin|pem|crt|key|gz|zip|tar|png|jpe?g|gif|pdf';
const PATH = /(?:~|\.{1,2})?(?:\/?[\w@+-][\w@.+-]*)(?:\/[\w@.+-]+)+\/?/g;
const FILE_NAME = new RegExp(`(?<![\\w/.-])[\\w@+-][\\w@.+-]*\\.(?:${FILE_EXT})(?![\\w/-])`, 'gi');
const BACKTICKED = /`([^`\n]{3,100})`/g;
const IDENTIFIER_LIKE = /^[\w$@.:/<>()[\],#-]+$/;
const ERROR_NAME = /\b(?:[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Failure)|E[A-Z]{3,}|TS\d{4})\b/g;
const TEST_NAME = /\b(?:test_\w{3,}|Test[A-Z]\w{2,})\b|\b(?:it|test|describe)\(\s*(['"`])([^'"`\n]{4,120})\1/g;
const QUANTITY =
  /(?<![\w.])\d+(?:[.,]\d+)?\s?(?:ms|µs|ns|s|sec|secs|seconds?|minutes?|mins?|hours?|h|[KMGT]i?B|kB|bytes?|%|tokens?|lines?|chars?|characters?|files?|tests?|px|rpm|rps|MHz|GHz|×)(?![\w])/g;
const URL = /\bhttps?:\/\/[^\s)"'`<>\]}]+[^\s)"'`<>\]}.,;:!?]/g;
const SHELL_TOOL = /bash|shell|terminal|exec|^sh$|^run|command|^cmd$/i;

const stripLeadingCd = (line: string): string => line.replace(/^\s*cd\s+\S+\s*&&\s*/, '').trim();

/** The facts a span of messages states, deduplicated by kind and text. */
export function extractFacts(messages: readonly ChatMessage[]): Fact[] {
  const out = new Map<string, Fact>();
  const add = (kind: FactKind, raw: string) => {
    const text = raw.trim();
    if (text.length < 3 || text.length > 200) return;
    const key = `${kind}\u0000${text}`;
    if (!out.has(key)) out.set(key, { kind, text });
  };
  for (const m of messages) {
    const text = messageText(m);
    for (const x of text.matchAll(URL)) add('url', x[0]);
    // A URL's path is not a file path.
    for (const x of text.replace(URL, ' ').matchAll(PATH)) {
      const p = x[0].replace(/[/.]+$/, '');
      // A path: at least one slash and a letter; not a fraction, date or ratio.
      if (/\//.test(p) && /[A-Za-z]/.test(p) && !/^[\d/.:-]+$/.test(p)) add('path', p);
    }
    for (const x of text.matchAll(FILE_NAME)) add('path', x[0]);
    for (const x of text.matchAll(BACKTICKED)) if (IDENTIFIER_LIKE.test(x[1]!)) add('identifier', x[1]!);
    for (const x of text.matchAll(ERROR_NAME)) add('error', x[0]);
    for (const x of text.matchAll(TEST_NAME)) add('test', x[2] ?? x[0]);
    for (const x of text.matchAll(QUANTITY)) add('quantity', x[0]);
    for (const c of m.toolCalls ?? []) {
      if (!SHELL_TOOL.test(c.name)) continue;
      const args = parseArguments(c.arguments);
      const cmd = args?.['command'] ?? args?.['cmd'];
      if (typeof cmd !== 'string') continue;
      const first = stripLeadingCd(cmd.split('\n')[0] ?? '');
      if (first.length >= 3) add('command', first.length > 120 ? first.slice(0, 120) : first);
    }
  }
  return [...out.values()];
}

const textOf = (messages: readonly ChatMessage[]): string => messages.map(messageText).join('\n');
const flat = (text: string): string => text.replace(/\s+/g, ' ');

/**
 * The failures of a span's calls, each as the line that says what failed (without its `error: ` / `exit 2: ` lead
 * and a test run's counts, at most 60 characters): what a note or the view must still state.
 */
export function failuresOf(messages: readonly ChatMessage[]): string[] {
  return [...new Set(failuresByCall(messages).values())];
}

/**
 * The line that says what failed (as `failuresOf` words it) of each failed call of a span, by the call's id: the
 * view states a failure when it keeps that call's result and the result still reads as the same failure (the
 * output's own words: `FAIL src/a.test.ts` and, lines below, the assertion, where a note joins them in one line).
 */
export function failuresByCall(messages: readonly ChatMessage[]): Map<string, string> {
  const state = {};
  const calls = new Map<string, ToolActivity>();
  const out = new Map<string, string>();
  messages.forEach((m, i) => {
    for (const c of m.toolCalls ?? []) calls.set(c.id, toolActivity(c, state));
    if (m.role !== 'tool') return;
    const failure = failureOf(m.toolCallId ? calls.get(m.toolCallId) : undefined, m);
    if (failure === undefined) return;
    const line = flat(failure.replace(/^(?:error|exit \d+): /, '').replace(/ \(tests [^)]*\)$/, '')).trim();
    if (line.length >= 3) out.set(m.toolCallId ?? `#${i}`, line.slice(0, 60).trimEnd());
  });
  return out;
}

/**
 * The launches of a span its calls left running, each as the handles that name it: its ids, or the file name of its
 * output when it has no id (a note may shorten the path to `…/name`).
 */
export function openLaunches(messages: readonly ChatMessage[]): string[][] {
  return openLaunchesOf(messages).launched.map((l) => {
    const ids = l.handles.filter((h) => h.kind !== 'output').map((h) => h.value);
    return ids.length > 0 ? ids : l.handles.map((h) => h.value.slice(h.value.lastIndexOf('/') + 1));
  });
}

const COMMIT_LINE = /^\[[\w./-]+(?: \([\w -]+\))? ([0-9a-f]{7,40})\] \S/gm;

/** The hashes of the commits a span's git commands made, as git printed them. */
export function commitsOf(messages: readonly ChatMessage[]): string[] {
  const git = new Set<string>();
  const out = new Set<string>();
  for (const m of messages) {
    for (const c of m.toolCalls ?? []) if (SHELL_TOOL.test(c.name) && /\bgit\b/.test(c.arguments)) git.add(c.id);
    if (m.role !== 'tool' || !m.toolCallId || !git.has(m.toolCallId)) continue;
    for (const x of m.content.matchAll(COMMIT_LINE)) out.add(x[1]!);
  }
  return [...out];
}

/** Evaluate one session; null (with the reason) when it is too short to cut. */
export function evaluateSession(
  session: TranscriptSession,
  options: EvalOptions,
  share = 0.5,
): SessionRetention | { skipped: string } {
  const min = options.minMessages ?? 10;
  const n = session.messages.length;
  if (n < min) return { skipped: `${n} messages (< ${min})` };
  const cut = cutIndex(session.messages, share);
  if (cut >= n) return { skipped: 'no second half after the last tool results' };
  const first = session.messages.slice(0, cut);
  const second = session.messages.slice(cut);
  const report = replaySession({ ...session, messages: first }, { ...options, everyTurn: false });
  const originalText = textOf(first);
  const compactedText = textOf(report.effective);
  const facts = extractFacts(second).filter((f) => originalText.includes(f.text));
  const byKind: Partial<Record<FactKind, { facts: number; retained: number }>> = {};
  const missed: Fact[] = [];
  let retained = 0;
  for (const f of facts) {
    const k = (byKind[f.kind] ??= { facts: 0, retained: 0 });
    k.facts++;
    if (compactedText.includes(f.text)) {
      k.retained++;
      retained++;
    } else if (missed.length < 25) missed.push(f);
  }
  const compactedFlat = flat(compactedText);
  const failed = failuresByCall(first);
  const stillReads = failuresByCall(report.effective);
  const failures = [...new Set(failed.values())];
  const failuresMissed = failures.filter(
    (line) =>
      !compactedFlat.includes(line) && ![...failed].some(([id, l]) => l === line && stillReads.get(id) === line),
  );
  const launches = openLaunches(first);
  const launchesMissed = launches.filter((names) => !names.some((n) => compactedText.includes(n)));
  const commits = commitsOf(first);
  return {
    id: session.id,
    messages: n,
    cut,
    facts: facts.length,
    retained,
    retention: facts.length ? retained / facts.length : null,
    byKind,
    originalChars: originalText.length,
    compactedChars: compactedText.length,
    charsKept: originalText.length ? compactedText.length / originalText.length : 1,
    tokensBefore: report.tokensBefore,
    tokensAfter: report.tokensAfter,
    fits: report.fits,
    missed,
    failures: failures.length,
    failuresKept: failures.length - failuresMissed.length,
    failuresMissed: failuresMissed.slice(0, 10),
    launches: launches.length,
    launchesKept: launches.length - launchesMissed.length,
    launchesMissed: launchesMissed.slice(0, 10).map((names) => names.join(', ')),
    commits: commits.length,
    commitsKept: commits.filter((h) => compactedText.includes(h)).length,
    ...(options.digestSummaries
      ? {
          digestSummaries: {
            requested: report.digestSummaries.requested,
            superseded: report.digestSummaries.superseded,
            rejected: report.digestSummaries.rejected,
          },
        }
      : {}),
  };
}

/** The digest summary requests a session's replay left unanswered (ReplayOptions.digestSummaries). */
export function unansweredDigestRequests(
  session: TranscriptSession,
  options: EvalOptions,
  share = 0.5,
): readonly SummaryRequest[] {
  const cut = cutIndex(session.messages, share);
  const report = replaySession(
    { ...session, messages: session.messages.slice(0, cut) },
    { ...options, everyTurn: false },
  );
  return report.digestSummaries.unanswered;
}

export function totalsOf(sessions: readonly SessionRetention[]): RetentionTotals {
  const scored = sessions.filter((s) => s.retention !== null);
  const facts = sessions.reduce((a, s) => a + s.facts, 0);
  const retained = sessions.reduce((a, s) => a + s.retained, 0);
  const originalChars = sessions.reduce((a, s) => a + s.originalChars, 0);
  const compactedChars = sessions.reduce((a, s) => a + s.compactedChars, 0);
  const byKind: Partial<Record<FactKind, { facts: number; retained: number }>> = {};
  for (const s of sessions)
    for (const [k, v] of Object.entries(s.byKind) as [FactKind, { facts: number; retained: number }][]) {
      const t = (byKind[k] ??= { facts: 0, retained: 0 });
      t.facts += v.facts;
      t.retained += v.retained;
    }
  return {
    sessions: sessions.length,
    scored: scored.length,
    facts,
    retained,
    retention: facts ? retained / facts : 1,
    meanRetention: scored.length ? scored.reduce((a, s) => a + s.retention!, 0) / scored.length : 1,
    originalChars,
    compactedChars,
    charsKept: originalChars ? compactedChars / originalChars : 1,
    maxCharsKept: sessions.reduce((a, s) => Math.max(a, s.charsKept), 0),
    byKind,
    failures: sessions.reduce((a, s) => a + s.failures, 0),
    failuresKept: sessions.reduce((a, s) => a + s.failuresKept, 0),
    launches: sessions.reduce((a, s) => a + s.launches, 0),
    launchesKept: sessions.reduce((a, s) => a + s.launchesKept, 0),
    commits: sessions.reduce((a, s) => a + s.commits, 0),
    commitsKept: sessions.reduce((a, s) => a + s.commitsKept, 0),
  };
}

/** The session as one user turn: the first user message stays, the later ones are dropped. */
export function asOneTurn(session: TranscriptSession): TranscriptSession {
  const first = session.messages.findIndex((m) => m.role === 'user');
  return { ...session, messages: session.messages.filter((m, i) => m.role !== 'user' || i === first) };
}

/** Evaluate every session of a transcript file's text; bad lines are reported as skipped with their error. */
export function evaluateText(text: string, options: EvalOptions = {}): RetentionReport {
  const sessions: SessionRetention[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const parsed of parseTranscripts(text)) {
    if (!parsed.ok) {
      skipped.push({ id: `line ${parsed.error.line}`, reason: `${parsed.error.field}: ${parsed.error.message}` });
      continue;
    }
    const session = options.oneTurn ? asOneTurn(parsed.session) : parsed.session;
    for (const share of options.cuts ?? [0.5]) {
      const r = evaluateSession(session, options, share);
      const id = (options.cuts ?? [0.5]).length > 1 ? `${parsed.session.id}@${share}` : parsed.session.id;
      if ('skipped' in r) skipped.push({ id, reason: r.skipped });
      else sessions.push({ ...r, id });
    }
  }
  return { options, sessions, skipped, totals: totalsOf(sessions) };
}
