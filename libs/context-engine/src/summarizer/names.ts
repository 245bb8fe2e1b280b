import { parseArguments as parseToolArguments, rangeEditOf, type ToolActivity } from './tool-activity';

/**
 * What a text or a tool call names: symbols of code (in prose, in what a call writes or searches for) and file
 * paths (in a listing, in an output). Bounded: outputs are read up to their first 20,000 characters or 400 lines.
 */

const SYMBOL = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?$/;
/** Looks like code, not a word: camelCase, snake_case, a dotted or called name. */
const CODE_LIKE = /[a-z][A-Z]|[A-Za-z]_[A-Za-z]|[\w)]\.[A-Za-z]|::|\(\)$|^[A-Z][a-z]+[A-Z]/;

const FILE_LIKE =
  /\.(?:[jt]sx?|mjs|cjs|json|py|rs|go|java|rb|php|c|h|cpp|md|ya?ml|toml|sh|css|html|txt|lock|pl|cfg|ini|rst|sql|log)$/i;

/**
 * Language keywords, builtin types and functions, and the receiver names of the common languages: every program
 * has them, so naming them tells the agent nothing about this code.
 */
const NOT_SYMBOLS = new Set(
  [
    // Python
    'def class return self cls None True False int str float bool bytes dict list tuple set frozenset object type',
    'len print range import from lambda pass raise try except finally with yield while for if else elif not and',
    'or is in as global nonlocal assert del break continue async await super isinstance open args kwargs',
    'Exception',
    // JavaScript / TypeScript
    'const let var function this new null undefined true false typeof instanceof delete void never unknown any',
    'string number boolean symbol bigint object Object String Number Boolean Symbol Array Promise Map Set Date',
    'JSON Math Error RegExp console require module exports export default static public private protected readonly',
    'interface enum extends implements abstract declare namespace switch case catch throw constructor keyof',
    'Record Partial Readonly ReadonlyArray',
    // Go / Rust / Java / C
    'func package go chan defer nil err struct impl fn pub mut use mod crate match loop where trait Self Some Ok Err',
    'Vec Option Result char long short double unsigned signed sizeof include define main void final println',
    // Shell
    'echo cd ls cat grep sed awk sudo then fi do done esac',
  ]
    .join(' ')
    .split(' '),
);

/**
 * The symbol a text names, or undefined: a name of code (`requireCodeLike`: camelCase, snake_case, dotted or called,
 * for words in prose), not a file name, not a keyword or builtin of a common language. Returns it without `()`.
 */
export function symbolName(raw: string, requireCodeLike = false): { name: string; text: string } | undefined {
  const text = raw.trim();
  if (text.length < 3 || text.length > 80 || !SYMBOL.test(text)) return undefined;
  if (requireCodeLike && !CODE_LIKE.test(text)) return undefined;
  if (FILE_LIKE.test(text)) return undefined; // a file name: listed with the files
  if (NOT_SYMBOLS.has(text.replace(/\(\)$/, ''))) return undefined;
  return { name: text.replace(/\(\)$/, ''), text };
}

const DECLARATION =
  /\b(?:function\*?|class|interface|type|enum|struct|trait|def|fn|func)\s+([A-Za-z_$][\w$]*)|^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=|^\s*(?:(?:public|private|protected|static|async|override|readonly)\s+)*([A-Za-z_$][\w$]*)\s*\([^)\n]*\)\s*(?::[^{\n]*)?\{\s*$/gm;
/** The start of a line up to a match that puts it in a comment (`//`, `/*`, a doc line's `*`, `#`, `--`). */
const IN_COMMENT = /\/\/|\/\*|^\s*\*|(?:^|\s)#(?![[!])|^\s*--\s/;
const BODY_ARGS = ['newText', 'new_str', 'new_string', 'content', 'file_text', 'text', 'code'];
const PATTERN_ARGS = ['pattern', 'query', 'regex', 'search', 'search_term', 'symbol', 'name'];
const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'constructor']);

/** Documents in prose: "a class that …", "the type of …" in them declare nothing. */
const PROSE_FILE = /\.(?:md|mdx|markdown|txt|rst|adoc)$/i;

/** A name the code a call writes declares; `local`: a variable declared inside a block (indented). */
interface Declaration {
  readonly name: string;
  readonly local: boolean;
}

/**
 * A call's declarations, once per call (its file's line and its symbols both read them; its arguments parsed only
 * then).
 */
const DECLARED = new WeakMap<object, Declaration[]>();
function declarationsOfCall(
  call: { name: string; arguments: string },
  activity: Pick<ToolActivity, 'files'>,
): Declaration[] {
  let found = DECLARED.get(call);
  if (found === undefined)
    DECLARED.set(call, (found = declarations(parseToolArguments(call.arguments) ?? {}, activity)));
  return found;
}

function declarations(args: Record<string, unknown>, activity: Pick<ToolActivity, 'files'>): Declaration[] {
  const { files } = activity;
  const writesProse = files.length > 0 && files.every((f) => PROSE_FILE.test(f.path));
  if (writesProse) return [];
  // (And the bodies of a list of edits: Claude Code's MultiEdit `edits: [{ old_string, new_string }, …]`; not another
  // list's items, a to-do list's `content`: "Add class Parser" declares nothing.)
  const edits = Array.isArray(args.edits)
    ? args.edits.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object')
    : [];
  return [args, ...edits].flatMap((o) =>
    BODY_ARGS.flatMap((key) => {
      const body = o[key];
      return typeof body === 'string' ? declarationsIn(body) : [];
    }),
  );
}

function declarationsIn(body: string): Declaration[] {
  const out: Declaration[] = [];
  const code = wholeLines(body.slice(0, 20_000));
  for (const m of code.matchAll(DECLARATION)) {
    const name = m[1] ?? m[2] ?? m[3];
    const local = m[2] !== undefined && /^\s/.test(m[0]);
    // A local variable with a plain word for a name (`lines`, `text`) is no symbol worth keeping.
    if (local && !CODE_LIKE.test(m[2]!)) continue;
    // A comment's prose declares nothing (`/// This function uses …`, `# the class of …`).
    const before = m[1] ? code.slice(code.lastIndexOf('\n', m.index) + 1, m.index).replace(/\/\*.*?\*\//g, '') : '';
    if (IN_COMMENT.test(before)) continue;
    // An import names what is declared elsewhere (`import { type Component, Foo }`, `import type { … }`).
    if (m[1] && (/\bimport\b/.test(before) || listedNext(code, m.index + m[0].length))) continue;
    if (name && !KEYWORDS.has(name)) out.push({ name, local });
  }
  return out;
}

const LISTED_NEXT = /\s*[,}]/y;
/** The text at `at` goes on with a list's `,` or `}`: the name before is one of an import's (`type A, B }`). */
const listedNext = (code: string, at: number): boolean => {
  LISTED_NEXT.lastIndex = at;
  return LISTED_NEXT.test(code);
};

/** A patch's file header: Codex's `*** Update File: src/a.ts`, a unified diff's `+++ b/src/a.ts`. */
const PATCH_FILE_HEADER = /^(?:\*\*\* (?:Add|Update) File: (.+)|\+\+\+ (?:b\/)?(.+?)(?:\t.*)?)$/;

/** The lines a patch adds, by the file its headers name. */
function addedLinesByFile(patch: string): Map<string, string> {
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of patch.slice(0, 50_000).split('\n')) {
    const header = PATCH_FILE_HEADER.exec(line);
    if (header) {
      const path = (header[1] ?? header[2])!.trim();
      current = out.get(path) ?? [];
      out.set(path, current);
    } else if (line.startsWith('*** ') || line.startsWith('--- ')) current = undefined;
    else if (current && line.startsWith('+')) current.push(line.slice(1));
  }
  return new Map([...out].map(([path, lines]) => [path, lines.join('\n')]));
}

/** A line of the window SWE-agent's editor prints: `1471:    def _serialize(self, value):`. */
const WINDOW_LINE = /^(\d+):(.*)$/;
const BINDING = /^\s*(?:export\s+)?(?:const|let|var)\b/;
const indentOf = (text: string): number => /^\s*/.exec(text)![0].length;

/**
 * The function or class a range edit's first line is in, read from the window the editor printed after it: the
 * nearest declaration above that line, indented less than it (`_serialize` for a fix of one line in its body).
 */
function enclosingDeclaration(window: string, line: number): string | undefined {
  const above: { name: string; indent: number }[] = [];
  let edited: number | undefined;
  for (const text of window.slice(0, 50_000).split('\n')) {
    const m = WINDOW_LINE.exec(text);
    if (!m) continue;
    const n = Number(m[1]);
    if (n >= line) {
      if (n === line) edited = indentOf(m[2]!);
      break;
    }
    const d = BINDING.test(m[2]!) ? undefined : declarationsIn(m[2]!).find((x) => !x.local);
    if (d) above.push({ name: d.name, indent: indentOf(m[2]!) });
  }
  if (edited === undefined) return undefined;
  return above.reverse().find((d) => d.indent < edited!)?.name;
}

/**
 * What a call that changes files wrote there, by name and by file: the functions, classes, types and top-level
 * constants its new text declares (not a block's local variables), first ones first, each once. The new text is an
 * editing tool's (`new_string`, `content` … of its one file), a patch's added lines (per file its headers name:
 * Codex's apply_patch, a unified diff in a heredoc) or SWE-agent's range edit (of the file open; one inside a body
 * changed the function its `result`, the editor's window, shows it in).
 */
export function namesChangedBy(
  call: { name: string; arguments: string },
  activity: Pick<ToolActivity, 'files' | 'script'>,
  result?: string,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (path: string, found: readonly Declaration[]) => {
    const names = found.flatMap((d) => (d.local ? [] : [d.name]));
    if (names.length > 0) out.set(path, [...new Set([...(out.get(path) ?? []), ...names])]);
  };
  const args = parseToolArguments(call.arguments) ?? {};
  const changed = activity.files.filter((f) => f.action === 'edit' || f.action === 'write');
  // (A patch is an argument, or a word of a command given as a list: Codex's `["apply_patch", "*** Begin Patch…"]`.)
  const texts = Object.values(args).flatMap((v) => (Array.isArray(v) ? v : [v]));
  for (const v of texts) {
    if (typeof v !== 'string' || !(v.includes('*** ') || v.includes('+++ '))) continue;
    for (const [path, added] of addedLinesByFile(v))
      if (changed.some((f) => f.path === path) && !PROSE_FILE.test(path)) add(path, declarationsIn(added));
  }
  if (out.size > 0) return out;
  if (changed.length !== 1) return out;
  const path = changed[0]!.path;
  const range = rangeEditOf(activity.script ?? '');
  if (!range) add(path, declarationsOfCall(call, activity));
  else if (!PROSE_FILE.test(path)) {
    add(path, declarationsIn(range.body));
    // One inside a body declares nothing: it changed the function the editor's window shows it in.
    const enclosing =
      out.size === 0 && range.first !== undefined && result !== undefined
        ? enclosingDeclaration(result, range.first)
        : undefined;
    if (enclosing !== undefined) add(path, [{ name: enclosing, local: false }]);
  }
  return out;
}

/** The names the code a call writes declares (what `namesOfCall` lists first). */
export function declaredNames(
  call: { name: string; arguments: string },
  activity: Pick<ToolActivity, 'files'>,
): string[] {
  return declarationsOfCall(call, activity).map((d) => d.name);
}

/**
 * Names a call defines (in the code it writes: not in a document it writes) or searches for (its pattern, a grep's
 * first operand), in order.
 */
export function namesOfCall(
  call: { name: string; arguments: string },
  activity: Pick<ToolActivity, 'command' | 'files' | 'webLookup'>,
): string[] {
  const { command } = activity;
  const args = parseToolArguments(call.arguments) ?? {};
  const names = declaredNames(call, activity);
  // A web search's query is prose: only its names of code (`findMany`), not its words.
  const web = activity.webLookup === true;
  for (const key of PATTERN_ARGS) {
    const v = args[key];
    if (typeof v !== 'string') continue;
    for (const part of v.split(/\\?\||\s+/))
      if (!web || CODE_LIKE.test(part)) names.push(part.replace(/^\\b|\\b$/g, ''));
  }
  const grep = command !== undefined ? /^\s*(?:grep|rg|ag|git grep)\b(.*)$/.exec(command) : null;
  if (grep) {
    const operand = (grep[1]!.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).find((t) => !t.startsWith('-'));
    if (operand)
      for (const part of operand.replace(/^(['"])(.*)\1$/, '$2').split(/\\?\||\s+/))
        names.push(part.replace(/^\\b|\\b$/g, '').replace(/^(?:function|class|def|const|export)\b\s*/, ''));
  }
  return names.filter((name) => name !== '');
}

const LISTING_COMMAND =
  /^\s*(?:ls|find|fd|tree|grep|rg|ag|git (?:status|ls-files|diff --(?:stat|name-only))|du|find_file|search_dir|search_file|[Gg]et-[Cc]hild[Ii]tem|gci|dir|[Ss]elect-[Ss]tring|sls)\b/;
const LISTING_TOOL = /glob|find|search|grep|^ls$|list/i;
/** A file tool's view of a directory (OpenHands' `str_replace_editor view` of one). */
const DIRECTORY_VIEW = /^\s*Here's the files and directories\b/;
/** Whether a call's result lists files: a listing command or tool, or a file tool's view of a directory. */
export const listsFiles = (tool: string, command: string | undefined, result = ''): boolean =>
  command !== undefined ? LISTING_COMMAND.test(command) : LISTING_TOOL.test(tool) || DIRECTORY_VIEW.test(result);

const LISTED_PATH =
  /^(?:[\p{L}\p{N}_@~.+-]+\/)*[\p{L}\p{N}_@+-][\p{L}\p{N}_@.+-]*\.[A-Za-z][\w]{0,9}$|^(?:[\p{L}\p{N}_@~.+-]*\/)+[\p{L}\p{N}_@.+-]+$|^[A-Za-z]:(?:[\\/][\p{L}\p{N}_@~.+-]+)+$/u;
const PERMISSIONS = /^[-dlcbps][rwxsStT-]{9}[@+.]?$/;
const isListedPath = (t: string): boolean => t.length >= 3 && t.length <= 200 && LISTED_PATH.test(t) && !/^\d/.test(t);

/**
 * File paths in a listing: the path of a `path:line:` search hit, every token of a line made only of paths
 * (ls, find), the name at the end of an `ls -l` line. Other lines (code, prose) give none.
 */
export function filesInListing(text: string): string[] {
  const out = new Set<string>();
  const add = (t: string) => {
    const p = t.replace(/[:,/*@=|]$/, '').replace(/^\.\//, '');
    if (isListedPath(p)) out.add(p);
  };
  let directory: string | undefined; // PowerShell's `Directory: C:\repo\src` heading
  for (const line of wholeLines(text).split('\n', 400)) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.length > 400) continue;
    // `git status` names its branch (`On branch fix/config`): no file.
    if (GIT_BRANCH_LINE.test(trimmed)) continue;
    const heading = /^Directory: (.+)$/.exec(trimmed);
    if (heading) {
      // A directory, not a file: it names the rows below.
      directory = heading[1]!.replace(/[\\/]+$/, '');
      continue;
    }
    // A row of PowerShell's `Get-ChildItem` (`-a---  11/20/2025  1:36 PM  1234 summary.ts`): a file, in the directory
    // of the heading above it (`-Recurse` gives one heading per directory).
    const row = /^-[-arhsl]{4,5}\s+\S+\s+\S+(?:\s+[AP]M)?\s+\d+\s+(\S.*)$/i.exec(trimmed);
    if (row) {
      add(directory ? `${directory}${directory.includes('\\') ? '\\' : '/'}${row[1]!}` : row[1]!);
      continue;
    }
    const hit = /^((?:[A-Za-z]:)?[^\s:]+):\d+[:-]/.exec(trimmed);
    // SWE-agent's search_dir / search_file / find_file: `path (3 matches)`, `Found 2 matches for "x" in path:`.
    const counted =
      /^(\S+) \(\d+ match(?:es)?\)$/.exec(trimmed) ??
      /^Found \d+ match(?:es)? for .* in (\S+\.[A-Za-z]\w{0,9}):?$/.exec(trimmed);
    const tokens = trimmed.split(/\s+/);
    if (hit) add(hit[1]!);
    else if (counted) add(counted[1]!);
    else if (PERMISSIONS.test(tokens[0]!)) add(tokens[tokens.length - 1]!);
    // A line of names (ls, ls -F with its `/`, `*`, `@` marks): the ones that look like files.
    else if (tokens.length <= 12 && tokens.every((t) => LISTED_NAME.test(t))) tokens.forEach(add);
    if (out.size >= 200) break;
  }
  return [...out];
}

const GIT_BRANCH_LINE = /^(?:On branch|HEAD detached (?:at|from)|Your branch)\s/;
const LISTED_NAME =
  /^(?:\.{0,2}\/|~\/)?[\p{L}\p{N}_@~.+-]+(?:\/[\p{L}\p{N}_@.+-]+)*[/*@=|:,]?$|^[A-Za-z]:(?:[\\/][\p{L}\p{N}_@~.+-]+)+[\\/:]?$/u;

/**
 * The text without the partial lines around a character cut (`[... 639 chars, 19 lines truncated ...]`, `[... N
 * chars omitted …]`): the line before such a marker lost its end and the line after it its start, so a path in
 * them is a fragment (`lers/numpy_handler.py`).
 */
function wholeLines(text: string): string {
  if (!text.includes('[... ')) return text;
  const parts: string[] = [];
  let from = 0;
  for (const m of text.matchAll(/\[\.\.\. \d+ chars\b[^\]\n]*\]/g)) {
    const before = text.lastIndexOf('\n', text.slice(0, m.index).trimEnd().length - 1);
    const afterMarker = m.index + m[0].length;
    const rest = text.slice(afterMarker);
    const lineStart = afterMarker + (rest.length - rest.trimStart().length);
    const after = text.indexOf('\n', lineStart);
    parts.push(text.slice(from, Math.max(from, before + 1)));
    from = after < 0 ? text.length : after;
  }
  parts.push(text.slice(from));
  return parts.join('\n');
}

/**
 * A file named in an output: a path or a name with the extension of code, configuration, data or a document
 * (`src/a.ts`, `requirements.txt`, `pom.xml`, `results.csv`, `report.pdf`); not a word with a dot, nor a product's
 * name with its version (`Node.js v20.11.0`, the last line of every Node crash).
 */
const NAMED_FILE =
  /(?<![\w@./\\-])(?:[A-Za-z]:(?:\\{1,2}|\/))?(?:[\w@.-]+(?:\\{1,2}|\/))*[\w@-][\w@.-]*\.(?:[jt]sx?|mjs|cjs|json|jsonl|py|ipynb|rs|go|java|kt|scala|gradle|rb|php|c|h|cc|cpp|hpp|cs|swift|dart|lua|md|rst|txt|ya?ml|toml|ini|cfg|conf|lock|xml|csv|tsv|sh|ps1|bat|tf|css|scss|html|vue|svelte|sql|proto|pdf|docx|xlsx|pptx)(?![\w/\\]| v\d)/g;
/** A line that is a file's path alone: the heading a linter's report (ESLint's `stylish`) lists its problems under. */
const FILE_HEADING = new RegExp(`^\\s*${NAMED_FILE.source}\\s*$`);

/**
 * The file a report's line at `at` falls under when the line itself names none (`  9:5  error  'z' is not defined`
 * under `/repo/src/b.ts`): the nearest heading above it in its block (not past a blank line, nor 200 lines back).
 */
export function fileHeadingAbove(lines: readonly string[], at: number): string | undefined {
  for (let i = at - 1; i >= 0 && i >= at - 200; i--) {
    const line = lines[i]!.trim();
    if (line === '') return undefined;
    // (An absolute path: its leading slash is not part of a name NAMED_FILE starts at.)
    if (FILE_HEADING.test(line.replace(/^\//, ''))) return line.replace(/^\.\//, '');
  }
  return undefined;
}

/** A line that says what failed. */
const FAILURE_WORD = /\b(?:error|failed|failure|exception|traceback|panic|fatal)\b/i;
/** A line that points at a place in a file (`src/a.ts:12:5`, `a.ts(12,5)`, `File "a.py", line 12`). */
export const PLACE_IN_FILE = /\.\w{1,10}(?::\d+|\(\d+,\d+\))|", line \d+/;
/** A compiler's or a linter's line that is not the failure (`src/a.c:10:5: warning: unused variable`). */
const NOT_FAILURE = /\b(?:warning|warn|note|hint|info)\b/i;

/**
 * The files a failed output names on its failure lines (a stack frame, a compiler's `file(12,5): error`, a failing
 * test's file; not a warning's or a note's location), read in its first 20,000 and last 10,000 characters, the last
 * 20 of them: a build's progress lines and warnings name many files, and the culprit comes last. Every file it names
 * (`filesNamedIn`) when no line points anywhere.
 */
export function filesOfFailure(text: string): string[] {
  const ends = text.length <= 30_000 ? text : `${text.slice(0, 20_000)}\n${text.slice(-10_000)}`;
  const out = new Set<string>();
  const lines = wholeLines(ends).split('\n');
  lines.forEach((line, at) => {
    const failing = FAILURE_WORD.test(line);
    if (!failing && (!PLACE_IN_FILE.test(line) || NOT_FAILURE.test(line))) return;
    const named = [...line.matchAll(NAMED_FILE)].map((m) => m[0].replace(/^\.\//, ''));
    // A report's problem line under its file's heading names the file by it.
    const heading = named.length === 0 && failing ? fileHeadingAbove(lines, at) : undefined;
    for (const path of heading === undefined ? named : [heading]) {
      out.delete(path); // named again: its last place counts
      out.add(path);
    }
  });
  return out.size > 0 ? [...out].slice(-20) : filesNamedIn(text);
}

/**
 * A line that says a file is not there (`No such file or directory`, `cannot access`, `ENOENT`, `does not exist`,
 * `file not found`); not one that names a file that is, for what it lacks (`src/a.ts(3,1): error TS2307: Cannot find
 * module './b'`, `Cannot find name 'chalk'`).
 */
const MISSING_LINE =
  /\bNo such file or directory\b|\bcannot (?:access|open|stat)\b|\bcan't (?:read|open|stat)\b|\b(?:does not|doesn't) exist\b|\bENOENT\b|\b(?:file|path|directory) not found\b/i;

/**
 * The files an output says are not there (`grep: src/editor.ts: No such file or directory`, `cat: a.py: No such
 * file`, `ENOENT: … open '/app/package.json'`): not files seen. At most 20, from the first 20,000 characters.
 */
export function filesMissing(text: string): string[] {
  if (!MISSING_LINE.test(text.slice(0, 20_000))) return [];
  const out = new Set<string>();
  for (const line of wholeLines(text.slice(0, 20_000)).split('\n')) {
    if (!MISSING_LINE.test(line)) continue;
    for (const m of line.matchAll(NAMED_FILE)) out.add(m[0].replace(/^\.\//, ''));
    if (out.size >= 20) break;
  }
  return [...out];
}

/** Up to 20 file paths an output names (bounded: the first 20,000 characters). */
export function filesNamedIn(text: string): string[] {
  const out = new Set<string>();
  for (const m of wholeLines(text.slice(0, 20_000)).matchAll(NAMED_FILE)) {
    out.add(m[0].replace(/^\.\//, ''));
    if (out.size >= 20) break;
  }
  return [...out];
}
