import { withoutSite } from './call-outcome';
import { failureTargets, labelTargets, resolvedTargets } from './tool-activity';

/**
 * An Errors seen line: `label — error line (×N) [status]`. The status: `fixed later` (a later call on the same target
 * succeeded), `superseded` (a later call on it failed otherwise, its output no longer showing this error), else
 * `unresolved`.
 */
export const ERROR_ITEM = /^(.*?) — (.*?)(?: \(×(\d+)\))? \[(fixed later|superseded|unresolved)\]$/;
export type ErrorStatus = 'fixed later' | 'superseded' | 'unresolved';

export interface ErrorEntry {
  /** The call's label (its latest occurrence when repeats were collapsed). */
  label: string;
  line: string;
  /** The line without what varies between repeats (`errorGist`). */
  gist: string;
  /** What a later success must share to resolve it (see `ToolActivity.targets`). */
  targets: string[];
  count: number;
  status: ErrorStatus;
  rank: number;
}

/** An error line without what varies between repeats: positions, line numbers, addresses, durations. */
const errorGist = (line: string): string =>
  withoutSite(line.replace(/…$/, ''))
    // (A place cut short with the line: stripping too much only keeps the error unresolved.)
    .replace(/ \(at [^()]*$/, '')
    .replace(/0x[0-9a-f]+/gi, '#')
    .replace(/(?<![A-Za-z])\d+(?:\.\d+)?(?![A-Za-z])/g, '#')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

/** A gist this long names a specific error: the same one from another command is a repeat too. */
const SPECIFIC = 40;
const gistKey = (gist: string): string => (gist.length >= SPECIFIC ? gist.slice(0, SPECIFIC) : gist);

/**
 * The errors a span met, each once with a count, and what became of each: fixed by a later success on its target,
 * superseded by a later different failure there, or still unresolved. Indexed by target and by the start of the gist,
 * so that repeats and resolutions are found without a scan.
 */
export class ErrorsSeen {
  private readonly entries: ErrorEntry[] = [];
  private readonly byTarget = new Map<string, ErrorEntry[]>();
  private readonly byGist = new Map<string, ErrorEntry[]>();

  /** No error yet: a success has nothing to resolve (its targets need not be read). */
  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  /** An item of an earlier summary's Errors seen, read back at `rank`. */
  readBack(item: string, rank: number): void {
    const m = ERROR_ITEM.exec(item);
    if (m)
      this.add({
        label: m[1]!,
        line: m[2]!,
        gist: errorGist(m[2]!),
        targets: failureTargets(labelTargets(m[1]!), m[2]!),
        count: Number(m[3] ?? 1),
        status: m[4] as ErrorStatus,
        rank,
      });
    else
      this.add({ label: item, line: '', gist: '', targets: [`label:${item}`], count: 1, status: 'unresolved', rank });
  }

  /**
   * A call labelled `label` failed on `targets` with `line` (a TypeScript diagnostic also on a later type check of the
   * whole project, whatever command said it: `failureTargets`). A repeat (the same error again, on the same target or
   * word for word) is one entry with a count. The unresolved errors a success there would have fixed
   * (`resolvedTargets`) are superseded unless its `output` still shows them (their gist), as a rerun that gets past
   * an error to the next one does; not when the output is `partial` (cut by compaction or by the command itself:
   * the rest may show them).
   */
  failed(
    label: string,
    line: string,
    targets: readonly string[],
    rank: number,
    output: string,
    partial: boolean,
  ): void {
    const own = failureTargets(targets, line);
    const gist = errorGist(line);
    let current = this.repeatOf(gist, own);
    if (current) {
      current.count++;
      current.status = 'unresolved';
      current.rank = rank;
      current.label = label;
      if (line.length >= current.line.length) {
        current.line = line;
        current.gist = gist;
      }
      this.indexTargets(current, own);
    } else {
      current = this.add({ label, line, gist, targets: own, count: 1, status: 'unresolved', rank });
    }
    if (partial) return;
    let shown: string | undefined;
    // What this run would have fixed (a type check of a few files, or a build, supersedes no diagnostic of another
    // command; a whole-project check does).
    for (const t of resolvedTargets(own.filter((t) => targets.includes(t))))
      for (const e of this.byTarget.get(t) ?? []) {
        if (e === current || e.status !== 'unresolved' || e.gist === '') continue;
        shown ??= errorGist(output);
        if (!shown.includes(e.gist)) e.status = 'superseded';
      }
  }

  /** A call succeeded on `targets`: the same command, script, test suite, or the same kind of action on the same file. */
  succeeded(targets: readonly string[]): void {
    for (const t of resolvedTargets(targets)) for (const e of this.byTarget.get(t) ?? []) e.status = 'fixed later';
  }

  /** Most telling first: the unresolved ones, then the others, each newest first. */
  byPriority(): ErrorEntry[] {
    const settled = (e: ErrorEntry) => Number(e.status !== 'unresolved');
    return [...this.entries].sort((a, b) => settled(a) - settled(b) || b.rank - a.rank);
  }

  private add(e: ErrorEntry): ErrorEntry {
    this.entries.push(e);
    this.indexTargets(e, e.targets);
    const key = gistKey(e.gist);
    this.byGist.set(key, [...(this.byGist.get(key) ?? []), e]);
    return e;
  }

  private indexTargets(e: ErrorEntry, targets: readonly string[]): void {
    for (const t of targets) {
      if (!e.targets.includes(t)) e.targets.push(t);
      const list = this.byTarget.get(t);
      if (!list) this.byTarget.set(t, [e]);
      else if (!list.includes(e)) list.push(e);
    }
  }

  /**
   * The error a new one repeats: the same gist on a shared target, or — for a specific error — the same gist (or one
   * cut short of the other) from any command.
   */
  private repeatOf(gist: string, targets: readonly string[]): ErrorEntry | undefined {
    for (const e of this.byGist.get(gistKey(gist)) ?? []) {
      if (gist.length >= SPECIFIC && e.gist.length >= SPECIFIC) {
        if (e.gist.startsWith(gist) || gist.startsWith(e.gist)) return e;
      } else if (e.gist === gist && targets.some((t) => e.targets.includes(t))) return e;
    }
    return undefined;
  }
}

/** An error's line in the note. */
export const formatError = (e: ErrorEntry): string =>
  `${e.label} — ${e.line || '(error)'}${e.count > 1 ? ` (×${e.count})` : ''} [${e.status}]`;
