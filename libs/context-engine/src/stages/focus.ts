/**
 * Which lines of a long tool result mattered, so that truncation keeps them rather than only the head and the
 * tail: the lines the agent went on to use. Its reaction to a result (the assistant messages that follow it, their
 * text and their calls' arguments) quotes code lines (an edit's `old_str`), names identifiers and cites line
 * numbers; and the call itself may have asked for a place (`open fields.py 1474`, `sed -n 80,120p`). A file view
 * cut head+tail loses the very lines around the place it was opened at. Pure.
 */

/** What the agent pointed at in a result. */
export interface Focus {
  /** Identifiers the reaction names that the result contains (each in few of its lines). */
  readonly terms: readonly string[];
  /** Lines of the reaction (trimmed, ≥ 12 characters) that the result contains: quoted code. */
  readonly quoted: readonly string[];
  /** Line numbers the call asked for or the reaction cites (matched against numbered result lines). */
  readonly lineNumbers: readonly number[];
  /**
   * The lines (indexes) each term is a word of, as `focusOf` found them in the same text: `truncateFocused` scores
   * with them instead of reading every line's words again. Found again when left out.
   */
  readonly termLines?: ReadonlyMap<string, readonly number[]>;
}

export const NO_FOCUS: Focus = { terms: [], quoted: [], lineNumbers: [] };

const IDENTIFIER = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g;
/** A word of a text: a whole-word occurrence of a term (or of each piece of a dotted one) is one of these. */
const WORD = /[A-Za-z_$][\w$]*/g;
/** Words of prose that say nothing about which line mattered. */
const COMMON = new Set(
  (
    'this that with from have will should would could there their them they then than what when where which while ' +
    'file files line lines code into about also just like make made need needs used uses using more some such ' +
    'does done each here look looks seems seem issue function value values first last next error true false none ' +
    'null self return print test tests able want sure know check change changes run running open view show'
  ).split(' '),
);
/** A numbered line of a file view or `grep -n`/`cat -n` output: `1474:`, `  1474→`, `1474\t`, `1474 |`. */
const NUMBERED_LINE = /^\s*(\d{1,7})(?:[:\t→|]|\s{1,2}\S)/;
const NUMBER = /(?<![\w.])\d{1,7}(?![\w.])/g;
/** Terms read from a reaction at most (the first it names): bounds the work on a long output. */
const MAX_TERMS = 40;
/** Quoted lines kept at most (the first the reaction quotes): truncation opens 8 windows at most. */
const MAX_QUOTED = 40;
/** Searches of the result for a quoted line at most: each reads up to the whole result. */
const MAX_QUOTE_SEARCHES = 200;
/** Terms and quotable lines beyond which the result's words screen them before any search. */
const SCREEN_AFTER = 24;
/**
 * A longer output (a log of megabytes) is cut head+tail: reading it for the pointed-at lines took 0.1–0.2 s per
 * megabyte on an idle 2-core machine (0.3 s loaded) with 40 terms each in many lines, more than a line or two of it
 * is worth.
 */
const MAX_FOCUS_CHARS = 1_000_000;

/**
 * The focus of `result` given the agent's `reaction` (text and call arguments after it) and the `call`'s own
 * arguments. Terms found in more than a fifth of the result's lines (and at least 3) point nowhere and are dropped.
 */
export function focusOf(result: string, reaction: string, call = ''): Focus {
  if (result.length > MAX_FOCUS_CHARS) return NO_FOCUS;
  const lines = result.split('\n');
  const named = [...new Set(reaction.match(IDENTIFIER) ?? [])].filter(
    (t) => t.length >= 4 && !COMMON.has(t.toLowerCase()),
  );
  const quotable = [...new Set(reaction.split('\n').map((l) => l.trim()))].filter((l) => l.length >= 12);
  // Each search reads up to the whole result. Past SCREEN_AFTER of them (a reaction that writes a long file names
  // thousands), the result's words are collected once, and a term or a line with a word the result lacks is not
  // searched for.
  const words = named.length + quotable.length > SCREEN_AFTER ? new Set(result.match(WORD)) : undefined;
  const searched = words ? named.filter((t) => t.split('.').every((w) => words.has(w))) : named;
  // The first MAX_TERMS of them the result contains are the candidates (the search stops there).
  const found = linesOfTerms(result, searched, MAX_TERMS);
  const candidates = [...found.keys()];
  const terms = candidates.filter((t) => {
    const df = found.get(t)!.length;
    return df < 3 || df <= lines.length / 5;
  });
  const quoted = quotedLines(result, quotable, words);
  const cited = new Set([...`${call}\n${reaction}`.matchAll(NUMBER)].map((m) => Number(m[0])));
  const numbered = new Set<number>();
  if (cited.size > 0)
    for (const l of lines) {
      const n = NUMBERED_LINE.exec(l);
      if (n) numbered.add(Number(n[1]));
    }
  const lineNumbers = [...cited].filter((n) => numbered.has(n));
  const termLines = terms.length ? new Map(terms.map((t) => [t, found.get(t)!])) : undefined;
  return { terms, quoted, lineNumbers, ...(termLines && { termLines }) };
}

/**
 * The `lines` (of the reaction: trimmed, ≥ 12 characters, each once) that `result` contains, the first MAX_QUOTED of
 * them. Given the result's `words`, a line with a whole word (one within the line, not at its edges) that is none of
 * them is not searched for.
 */
function quotedLines(result: string, lines: readonly string[], words?: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let searches = 0;
  for (const line of lines) {
    if (out.length >= MAX_QUOTED || searches >= MAX_QUOTE_SEARCHES) break;
    if (words && !innerWordsIn(line, words)) continue;
    searches++;
    if (result.includes(line)) out.push(line);
  }
  return out;
}

/** Whether every word standing whole inside `line` (not touching its start or end) is one of `words`. */
function innerWordsIn(line: string, words: ReadonlySet<string>): boolean {
  for (const m of line.matchAll(WORD)) {
    const end = m.index + m[0].length;
    if (m.index > 0 && !isWordChar(line.charCodeAt(m.index - 1)) && end < line.length && !words.has(m[0])) return false;
  }
  return true;
}

/**
 * The lines (indexes of `text.split('\n')`, ascending) each of `terms` is a whole word in, for the terms found (with
 * a `limit`: the first `limit` of them). A whole word: not preceded or followed by a letter, digit, `_` or `$`
 * (`queued` is not in `queuedMessages`); a dot is a boundary, so `total_seconds` is found in `value.total_seconds`.
 * A native search per term, not a pass over every identifier of the text.
 */
function linesOfTerms(text: string, terms: Iterable<string>, limit = Infinity): Map<string, number[]> {
  const at = new Map<string, number[]>();
  let lineStarts: number[] | undefined;
  for (const term of terms) {
    if (at.size >= limit) break;
    const list: number[] = [];
    if (term.length > 0)
      for (let p = text.indexOf(term); p !== -1; p = text.indexOf(term, p + 1)) {
        if (isWordChar(text.charCodeAt(p - 1)) || isWordChar(text.charCodeAt(p + term.length))) continue;
        lineStarts ??= lineStartsOf(text);
        const line = lineOf(lineStarts, p);
        if (list[list.length - 1] !== line) list.push(line);
      }
    if (list.length > 0) at.set(term, list);
  }
  return at;
}

/** An ASCII letter, digit, `_` or `$`, as in an identifier (NaN, outside the text, is none; `→` is a boundary). */
function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let p = text.indexOf('\n'); p !== -1; p = text.indexOf('\n', p + 1)) starts.push(p + 1);
  return starts;
}

/** The index of the line holding position `p`: the last start ≤ p. */
function lineOf(starts: readonly number[], p: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export const hasFocus = (f: Focus): boolean => f.terms.length + f.quoted.length + f.lineNumbers.length > 0;

/** Lines kept around a pointed-at line: a cited line number gets a wider window (the agent asked for a place). */
const CONTEXT = { before: 2, after: 3, aroundNumber: 10 };
/** The share of the room the head and the pointed-at lines may fill: the rest is the tail's (a run's summary, its last error). */
const FOCUS_SHARE = 0.6;
/** Characters a gap marker takes, paid for out of the budget. */
const GAP_MARKER = 40;
/** A kept line longer than this is clipped (a minified bundle's one line must not take the whole budget). */
const MAX_LINE = 400;

/**
 * `text` cut to at most `maxChars` characters and `maxLines` lines, keeping the lines the focus points at (and a
 * few around each), then as much of the head and the tail as still fits, each gap marked `[... N lines truncated
 * ...]`. Without a focus, for text of few lines, or when no pointed-at line fits, the plain head+tail cut
 * (`fallback`).
 */
export function truncateFocused(
  text: string,
  maxChars: number,
  maxLines: number,
  focus: Focus,
  fallback: (text: string, maxChars: number, maxLines: number) => string,
): string {
  const lines = text.split('\n');
  if (text.length <= maxChars && lines.length <= maxLines) return text;
  if (!hasFocus(focus) || lines.length < 10 || text.length > MAX_FOCUS_CHARS) return fallback(text, maxChars, maxLines);
  const scores = scoreLines(text, lines, focus);
  const ranked = [...scores.keys()].sort((a, b) => scores.get(b)! - scores.get(a)! || a - b);
  if (ranked.length === 0) return fallback(text, maxChars, maxLines);

  const kept = new Set<number>();
  const shown = (i: number) => Math.min(lines[i]!.length, MAX_LINE + 1) + 1;
  // Room for the lines once the gap markers (one per window, and around the head and the tail) are paid for.
  const windows = Math.max(1, Math.min(8, Math.floor(maxChars / 400)));
  const room = maxChars - GAP_MARKER * (windows + 2);
  let chars = 0;
  const tryKeep = (i: number): boolean => {
    if (i < 0 || i >= lines.length) return false;
    if (kept.has(i)) return true;
    if (chars + shown(i) > room || kept.size >= maxLines) return false;
    kept.add(i);
    chars += shown(i);
    return true;
  };
  // A head of a fifth of the room first (what the output is: a file's name, a command's first lines).
  for (let i = 0; i < lines.length && chars < room / 5 && tryKeep(i); i++);
  let opened = 0;
  for (const i of ranked) {
    if (opened >= windows || chars >= room * FOCUS_SHARE) break;
    if (kept.has(i) || !tryKeep(i)) continue;
    opened++;
    const around = focus.lineNumbers.includes(numberOf(lines[i]!) ?? -1) ? CONTEXT.aroundNumber : 0;
    // Each window one run of lines, so the gap markers paid for above suffice.
    for (let d = 1; d <= Math.max(CONTEXT.before, around) && tryKeep(i - d); d++);
    for (let d = 1; d <= Math.max(CONTEXT.after, around) && tryKeep(i + d); d++);
  }
  // No pointed-at line fits (a last-resort cut of a few hundred characters): the plain cut keeps more.
  if (opened === 0) return fallback(text, maxChars, maxLines);
  // What budget is left: the tail, then more of the head.
  for (let i = lines.length - 1; i >= 0 && tryKeep(i); i--);
  for (let i = 0; i < lines.length && tryKeep(i); i++);
  return render(lines, kept);
}

function scoreLines(text: string, lines: readonly string[], focus: Focus): Map<number, number> {
  const termLines = focus.termLines ?? linesOfTerms(text, focus.terms);
  const fromTerms = new Map<number, number>();
  for (const t of focus.terms) {
    const at = termLines.get(t) ?? [];
    for (const i of at) fromTerms.set(i, (fromTerms.get(i) ?? 0) + 1 / Math.sqrt(at.length));
  }
  const scores = new Map<number, number>();
  lines.forEach((line, i) => {
    let s = fromTerms.get(i) ?? 0;
    const trimmed = line.trim();
    if (trimmed.length >= 12 && focus.quoted.some((q) => trimmed.includes(q) || q.includes(trimmed))) s += 5;
    const n = numberOf(line);
    if (n !== undefined && focus.lineNumbers.includes(n)) s += 4;
    if (s > 0) scores.set(i, s);
  });
  return scores;
}

const numberOf = (line: string): number | undefined => {
  const m = NUMBERED_LINE.exec(line);
  return m ? Number(m[1]) : undefined;
};

function render(lines: readonly string[], kept: ReadonlySet<number>): string {
  const out: string[] = [];
  let gap = 0;
  lines.forEach((line, i) => {
    if (!kept.has(i)) {
      gap++;
      return;
    }
    if (gap > 0) out.push(`\n[... ${gap} lines truncated ...]\n`);
    gap = 0;
    out.push(line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line);
  });
  if (gap > 0) out.push(`\n[... ${gap} lines truncated ...]`);
  return out.join('\n');
}
