import type { ChatMessage, ToolCall } from '../model/message';

/** What one tool call did, as far as its name and JSON arguments tell: files it touched and the shell command it ran. */
export interface ToolActivity {
  readonly files: readonly { readonly path: string; readonly action: FileAction }[];
  /** The shell command, when the tool is a shell (first line only for multi-line scripts). */
  readonly command?: string;
  /** The whole shell command, all its lines, when the tool is a shell. */
  readonly script?: string;
  /** A short description of the call for notes: `bash \`npm test\``, `edit src/a.ts`. */
  readonly label: string;
  /** Key for "same operation again": the tool plus its path or command. */
  readonly key: string;
  /**
   * What a later success must share with a failed call to resolve it (`errorTargetsOf`): the same command, the
   * same script or test file run, the same kind of action on the same file, a whole test suite passing.
   */
  readonly targets: readonly string[];
  /**
   * The call asks for its work to go on after it returns: a flag argument (`run_in_background: true`,
   * `is_background`, `async`, `detach`) or a shell command that backgrounds (`cmd &`, `nohup`, `setsid`).
   */
  readonly background?: boolean;
  /** The file a shell command changes without naming it (SWE-agent's `edit 5:5` edits the file opened last). */
  readonly changesUnnamed?: string;
  /** The call looked something up on the web (`isWebTool`): what it found is its outcome (web-lookup.ts). */
  readonly webLookup?: boolean;
}

/** read, edit or write; for other tools that name a file (find_file, grep …) the tool's name. */
export type FileAction = string;

/** An action that changes its file (an edit, a write, a deletion), not one that reads or searches it. */
export const isChange = (action: FileAction): boolean => action === 'edit' || action === 'write' || action === 'delete';

const PATH_KEYS = [
  'path',
  'file_path',
  'filePath',
  'filename',
  'file_name',
  'file',
  'target_file',
  'absolute_path',
  'notebook_path',
] as const;
const PATH_LIST_KEYS = ['paths', 'file_paths', 'filePaths', 'files'] as const;
/** Files taken from one call's list of paths. */
const MAX_LISTED_PATHS = 20;
const COMMAND_KEYS = ['command', 'cmd', 'script'] as const;

/**
 * A call that looks something up on the web (Claude Code's `WebSearch` and `WebFetch`, Gemini CLI's
 * `google_web_search` and `web_fetch`, Codex's `web_search`): what it asked and what it found are knowledge a later
 * step builds on (a documentation page, an API), and its query is prose, not names of code.
 */
export const isWebTool = (name: string): boolean => /web_?(?:search|fetch)|google|fetch_?url|read_?url/i.test(name);
const SHELL_TOOL = /bash|shell|terminal|exec|^sh$|^run|command|^cmd$/i;

export function parseArguments(args: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(args);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const classify = (s: string): FileAction | undefined => {
  if (/str_replace|edit|patch|insert|replace|undo|apply_?diff|append/i.test(s)) return 'edit';
  // (A tool that deletes files: `delete_file`, `remove_file`, MCP's `…__delete_file`; not `delete_lines`.)
  if (/(?:^|_)(?:delete|remove|unlink|trash)(?:[_-]?files?)?$/i.test(s)) return 'delete';
  if (/write|create|save/i.test(s)) return 'write';
  if (/read|view|open|cat\b|show/i.test(s)) return 'read';
  return undefined;
};

/** read / edit / write from the tool's name (or its sub-command, e.g. str_replace_editor's `view`); else the tool's own name. */
export function actionOfTool(name: string, subcommand?: string): FileAction {
  return (subcommand !== undefined ? classify(subcommand) : undefined) ?? classify(name) ?? name.toLowerCase();
}

const looksLikePath = (s: string): boolean =>
  s.length > 0 &&
  s.length <= 300 &&
  !s.includes('\n') &&
  ((/^[\p{L}\p{N}_@~./+-][\p{L}\p{N}_@~./+,=-]*$/u.test(s) &&
    /[./]/.test(s) &&
    !/^[\d.,:/+-]+$/.test(s) &&
    !/^\.+$/.test(s) &&
    !s.startsWith('/dev/') &&
    !/^[a-z]+:\/\//i.test(s)) ||
    isWindowsPath(s));

/**
 * A Windows path (agents on Windows: `D:\Projects\app\src\a.ts`, `C:/work/a.md`), from a drive, or relative with
 * backslashes and a file's extension (`server\src\a.ts`; not an escape in a pattern, `a\.b`); names in any script
 * (`work\实验讲义.docx`).
 */
const isWindowsPath = (s: string): boolean =>
  /^[A-Za-z]:[\\/]/.test(s)
    ? /^[A-Za-z]:(?:[\\/][\p{L}\p{N}_@~.+-]+)+[\\/]?$/u.test(s)
    : /^[\p{L}\p{N}_@~+-][\p{L}\p{N}_@~.+-]*(?:\\[\p{L}\p{N}_@~+-][\p{L}\p{N}_@~.+-]*)+\.[A-Za-z]\w{0,9}$/u.test(s);

const READ_VERBS = new Set([
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'nl',
  'open',
  'bat',
  'view',
  'xxd',
  'hexdump',
  'od',
  'strings',
  'diff',
  'cmp',
]);
/** Programs given a program first, then the files it reads (`awk 'NR<20' a.py`, `jq .scripts package.json`). */
const PROGRAM_FIRST = new Set(['awk', 'gawk', 'jq', 'yq']);
const EDIT_VERBS = new Set(['vim', 'vi', 'nano', 'emacs', 'code', 'edit']);
const WRITE_VERBS = new Set(['create', 'touch']);
/** Commands that delete the files they name (`rm`, `git rm`, Windows' `del`; PowerShell's below). */
const DELETE_VERBS = new Set(['rm', 'unlink', 'del', 'erase']);
/**
 * PowerShell's cmdlets that act on the files they name (`-Path`, `-LiteralPath`, `-FilePath` or first operand), and
 * their aliases, by what they do; PowerShell does not tell case apart (Codex CLI on Windows: `Get-Content -LiteralPath
 * 'C:\…\SKILL.md' -TotalCount 220`, `Get-Content src\summary.ts | Select-Object -First 240`).
 */
const POWERSHELL_ACTIONS: ReadonlyMap<string, FileAction> = new Map([
  ['get-content', 'read'],
  ['gc', 'read'],
  ['set-content', 'write'],
  ['out-file', 'write'],
  ['new-item', 'write'],
  ['ni', 'write'],
  ['add-content', 'edit'],
  ['ac', 'edit'],
  ['remove-item', 'delete'],
  ['ri', 'delete'],
]);
/** PowerShell's switches that take no value (the others' value follows them: `-TotalCount 220`, `-Encoding utf8`). */
const POWERSHELL_SWITCH = /^-(?:raw|force|recurse|wait|nonewline|append|whatif|confirm|passthru)$/i;
/** A switch of Windows' `del` (`/q`, `/f`), not a file. */
const CMD_SWITCH = /^\/[A-Za-z]$/;
/** Flags whose next token is a value, not a file (head -n 20, tail -c 100, sed -e script; not cat -n, cp -n). */
const flagTakesValue = (verb: string, flag: string): boolean =>
  verb === 'sed'
    ? /^-(?:e|f|l)$/.test(flag)
    : verb === 'perl'
      ? /^-\w*[eE]$/.test(flag)
      : verb === 'awk' || verb === 'gawk'
        ? /^-[Fvf]$/.test(flag)
        : (verb === 'head' || verb === 'tail') && /^-(?:n|c)$/.test(flag);
/**
 * Commands that copy or move files to their last operand (`cp a.json b.json`, `mv a.ts b.ts utils/`), and
 * PowerShell's cmdlets (`Copy-Item -LiteralPath a.docx -Destination b.docx`, any case: parameters, not flags); `git mv`
 * too.
 */
interface Transfer {
  readonly kind: 'copy' | 'move';
  readonly cmdlet: boolean;
}
const TRANSFER_VERBS: ReadonlyMap<string, Transfer> = new Map([
  ['cp', { kind: 'copy', cmdlet: false }],
  ['copy-item', { kind: 'copy', cmdlet: true }],
  ['cpi', { kind: 'copy', cmdlet: true }],
  ['mv', { kind: 'move', cmdlet: false }],
  ['move-item', { kind: 'move', cmdlet: true }],
  ['mi', { kind: 'move', cmdlet: true }],
]);
const GIT_MV: Transfer = { kind: 'move', cmdlet: false };
const hasExtension = (path: string): boolean => /\.[^./\\]+$/.test(path.replace(/[\\/]+$/, ''));
const baseName = (path: string): string => path.split(/[\\/]/).pop()!;

/**
 * The files a copy or a move names: its sources' new paths (written; in the destination when it is a directory: it
 * ends with a separator, several files go to it, or it has no extension where the file has one) and its sources
 * (deleted by a move, read by a copy). Only files (a name with an extension): a directory's files are not known.
 */
function transferred(
  kind: 'copy' | 'move',
  sources: readonly string[],
  destination: string,
): { path: string; action: FileAction }[] {
  const files = sources.filter((s) => looksLikePath(s) && hasExtension(s));
  const intoDirectory =
    destination === '.' ||
    /[\\/]$/.test(destination) ||
    sources.length > 1 ||
    (!hasExtension(destination) && files.length > 0);
  if (!intoDirectory && !looksLikePath(destination)) return [];
  const separator = destination.includes('\\') && !destination.includes('/') ? '\\' : '/';
  const out: { path: string; action: FileAction }[] = [];
  for (const source of files) {
    // A move deletes its source; a copy reads it (as a copy tool's source is read).
    out.push({ path: source, action: kind === 'move' ? 'delete' : 'read' });
    const to = !intoDirectory
      ? destination
      : destination === '.'
        ? baseName(source)
        : `${destination.replace(/[\\/]+$/, '')}${separator}${baseName(source)}`;
    out.push({ path: to, action: 'write' });
  }
  return out;
}

/** A shell line's commands: split at `&&`, `||`, `;` and `|` outside quotes (`awk 'NR>1 && NR<9' a.py` is one). */
export function segmentsOf(line: string): string[] {
  return line.match(/(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^'"&|;]|(?<!&)&(?!&))+/g) ?? [];
}

function tokenize(line: string): string[] {
  return (line.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((t) => t.replace(/^(['"])(.*)\1$/, '$2'));
}

/**
 * Files a shell command reads or writes, from the common forms only: cat/head/tail/sed/vim/open/…,
 * redirections and tee, SWE-agent's `open`/`create`/`edit` (which edits the file opened last).
 */
export function filesOfShellCommand(
  command: string,
  lastOpened?: string,
): { files: { path: string; action: FileAction }[]; lastOpened?: string } {
  const files: { path: string; action: FileAction }[] = [];
  let opened = lastOpened;
  let cwd: string | undefined;
  const resolve = (p: string): string =>
    cwd && !p.startsWith('/') && !p.startsWith('~') && !/^[A-Za-z]:[\\/]/.test(p)
      ? `${cwd.replace(/\/+$/, '')}/${p.replace(/^\.\//, '')}`
      : p;
  for (const line of commandLines(command)) {
    for (const segment of segmentsOf(line)) {
      const tokens = tokenize(segment.trim());
      if (tokens.length === 0) continue;
      if (tokens[0] === 'cd' && tokens.length === 2) {
        cwd = tokens[1].startsWith('/') ? tokens[1] : cwd ? resolve(tokens[1]) : undefined;
        continue;
      }
      // Redirections write wherever they appear.
      tokens.forEach((t, i) => {
        const target =
          t === '>' || t === '>>' ? tokens[i + 1] : /^>>?[^>&]/.test(t) ? t.replace(/^>>?/, '') : undefined;
        if (target && looksLikePath(target)) files.push({ path: resolve(target), action: 'write' });
      });
      const verb = tokens[0];
      // Redirection operators and their targets are not operands.
      const args = tokens.slice(1).filter((t, i, all) => {
        const prev = i > 0 ? all[i - 1] : '';
        return !/^\d?[<>]/.test(t) && !/^\d?(?:>>?|<<?-?)$/.test(prev);
      });
      const operands: string[] = [];
      const powershell = POWERSHELL_ACTIONS.get(verb.toLowerCase());
      const transfer = verb === 'git' && args[0] === 'mv' ? GIT_MV : TRANSFER_VERBS.get(verb.toLowerCase());
      const cmdlet = powershell !== undefined || transfer?.cmdlet === true;
      let destination: string | undefined;
      for (let i = 0; i < args.length; i++) {
        if (cmdlet && args[i].startsWith('-')) {
          // A parameter naming the file gives it; any other one's value is not a file.
          if (/^-(?:path|literalpath|filepath|pspath)$/i.test(args[i])) operands.push(args[++i] ?? '');
          else if (/^-destination$/i.test(args[i])) destination = args[++i];
          else if (!POWERSHELL_SWITCH.test(args[i])) i++;
          continue;
        }
        if (args[i].startsWith('-')) {
          if (flagTakesValue(verb, args[i])) i++;
          continue;
        }
        operands.push(args[i]);
      }
      if (powershell !== undefined) {
        // `New-Item -ItemType Directory` makes a directory.
        if (powershell === 'write' && /\s-ItemType\s+['"]?Directory\b/i.test(segment)) continue;
        for (const p of operands.filter((o) => o !== '' && looksLikePath(o)))
          files.push({ path: resolve(p), action: powershell });
      } else if (transfer !== undefined) {
        const named = verb === 'git' ? operands.slice(1) : operands;
        const to = destination ?? (named.length >= 2 ? named[named.length - 1] : undefined);
        const from = destination === undefined ? named.slice(0, -1) : named;
        if (to !== undefined)
          for (const f of transferred(transfer.kind, from, to)) files.push({ path: resolve(f.path), action: f.action });
      } else if (verb === 'sed') {
        const inPlace = args.some((a) => /^-i/.test(a));
        const hasScriptFlag = args.some((a) => a === '-e' || a === '-f');
        for (const p of (hasScriptFlag ? operands : operands.slice(1)).filter(looksLikePath)) {
          files.push({ path: resolve(p), action: inPlace ? 'edit' : 'read' });
        }
      } else if (verb === 'perl' && args.some((a) => /^-\w*i/.test(a))) {
        // `perl -pi -e 's/a/b/' a.pl`: edits its files in place, as `sed -i` does.
        for (const p of operands.filter(looksLikePath)) files.push({ path: resolve(p), action: 'edit' });
      } else if (verb === 'git' && (operands[0] === 'restore' || (operands[0] === 'checkout' && args.includes('--')))) {
        // `git checkout -- a.py`, `git restore a.py`: the file back as committed (not `--staged`: that unstages it).
        if (!args.includes('--staged') && !args.includes('-S'))
          for (const p of operands.slice(1).filter(looksLikePath)) files.push({ path: resolve(p), action: 'restore' });
      } else if (PROGRAM_FIRST.has(verb)) {
        // (With `-f`, awk's program is a file of its own: every operand is read.)
        const named = verb.endsWith('awk') && args.includes('-f') ? operands : operands.slice(1);
        for (const p of named.filter(looksLikePath)) files.push({ path: resolve(p), action: 'read' });
      } else if (verb === 'git' && (operands[0] === 'show' || operands[0] === 'blame')) {
        // `git show HEAD~1:src/a.py`, `git blame -L 10,20 src/a.py`: the file as committed, read.
        for (const o of operands.slice(1)) {
          const path = operands[0] === 'show' ? /^[^:\s]+:(.+)$/.exec(o)?.[1] : o;
          if (path !== undefined && looksLikePath(path) && /\.\w+$/.test(path))
            files.push({ path: resolve(path), action: 'read' });
        }
      } else if (verb === 'tee') {
        for (const p of operands.filter(looksLikePath)) files.push({ path: resolve(p), action: 'write' });
      } else if (verb === 'edit' && RANGE_EDIT.test(tokens.join(' '))) {
        if (opened) files.push({ path: opened, action: 'edit' });
      } else if (DELETE_VERBS.has(verb) || (verb === 'git' && operands[0] === 'rm')) {
        const named = verb === 'git' ? operands.slice(1) : operands;
        for (const p of named.filter((o) => looksLikePath(o) && !CMD_SWITCH.test(o)))
          files.push({ path: resolve(p), action: 'delete' });
      } else if (READ_VERBS.has(verb) || EDIT_VERBS.has(verb) || WRITE_VERBS.has(verb)) {
        const action: FileAction = READ_VERBS.has(verb) ? 'read' : EDIT_VERBS.has(verb) ? 'edit' : 'write';
        const paths = (verb === 'open' || verb === 'create' ? operands.slice(0, 1) : operands)
          .filter(looksLikePath)
          .map(resolve);
        for (const p of paths) files.push({ path: p, action });
        if ((verb === 'open' || verb === 'create') && paths[0]) opened = paths[0];
      }
    }
  }
  for (const f of filesOfInlineScripts(command)) files.push({ path: resolve(f.path), action: f.action });
  // (One call that edits a file with ten seds is one edit of it.)
  const once = new Map(files.map((f) => [`${f.action}\u0000${f.path}`, f]));
  return { files: [...once.values()], lastOpened: opened };
}

/** A Python or Node script given inline: a heredoc's body (`python - <<'PY'`, `node <<EOF`), or `-c` / `-e` text. */
const INLINE_SCRIPT =
  /\b(?:python\d*(?:\.\d+)?|node)\s+(?:-\s+)?<<-?\s*['"]?(\w+)['"]?[^\n]*\n([\s\S]*?)\n\s*\1\s*(?:\n|$)|\b(?:python\d*(?:\.\d+)?\s+-c|node\s+-e)\s+(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/g;
/** A file a script names: `Path('a.py')`, `open('a.py', 'w')`, `fs.writeFileSync('a.json', …)`, `readFileSync('b')`. */
const SCRIPT_FILE =
  /\bPath\(\s*(['"])([^'"\n]+)\1\s*\)|\bopen\(\s*(['"])([^'"\n]+)\3\s*(?:,\s*(?:mode\s*=\s*)?['"]([rwax+bt]+)['"])?|\b(writeFileSync|appendFileSync|readFileSync|writeFile|readFile)\(\s*(['"])([^'"\n]+)\7/g;

/**
 * The files a Python or Node script run inline reads or writes (agents edit with them: `python - <<'PY'` … `p =
 * Path('src/a.py'); p.write_text(p.read_text().replace(…))`): a `Path` it names is edited when the script writes
 * through one (`write_text`, `write_bytes`), else read; `open` with a mode that writes, and `writeFileSync`, write.
 */
function filesOfInlineScripts(command: string): { path: string; action: FileAction }[] {
  const files: { path: string; action: FileAction }[] = [];
  for (const script of command.matchAll(INLINE_SCRIPT)) {
    const body = script[2] ?? script[3] ?? script[4] ?? '';
    const writesPaths = /\.write_(?:text|bytes)\(/.test(body);
    for (const m of body.matchAll(SCRIPT_FILE)) {
      const path = m[2] ?? m[4] ?? m[8]!;
      if (!looksLikePath(path)) continue;
      const action =
        m[2] !== undefined
          ? writesPaths
            ? 'edit'
            : 'read'
          : m[4] !== undefined
            ? /[wax+]/.test(m[5] ?? 'r')
              ? 'write'
              : 'read'
            : /^(?:write|append)/.test(m[6]!)
              ? 'write'
              : 'read';
      files.push({ path, action });
    }
  }
  return files;
}

/**
 * The lines of a shell command that are commands: a heredoc's body, a PowerShell here-string's and an SWE-agent
 * edit's body (file content, up to and with their terminator) are skipped.
 */
function* commandLines(command: string): Generator<string> {
  const lines = command.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    yield line;
    const here = HERE_STRING.exec(line);
    if (here) {
      // A PowerShell here-string's body is text; what follows its closing `'@` on that line is a command.
      const close = hereStringEnd(lines, i, here[1]!);
      if (close < 0) return;
      i = close;
      yield lines[close]!.slice(2);
      continue;
    }
    const heredoc = /<<-?\s*['"]?(\w+)['"]?/.exec(line);
    const terminator = heredoc ? heredoc[1] : RANGE_EDIT.test(line.trim()) ? 'end_of_edit' : undefined;
    if (terminator) {
      while (i + 1 < lines.length && lines[i + 1]!.trim() !== terminator) i++;
      i++;
    }
  }
}

/**
 * The line a command is known by (its label, the key its runs share): its first line, with what that line leaves open
 * joined on — lines continued with `\\` (`curl -X POST url \\` and its `-d '{…}'`), a quote left open (`python3 -c "`
 * and its first lines of code, joined by `; `), a script given to an interpreter through a heredoc (`python3 - <<EOF`
 * and its first lines), a message given through a heredoc (`git commit -m "$(cat <<'EOF'` … `EOF` `)"`: the message's
 * first line). A heredoc that writes a file (`cat > a.py <<EOF`) and an editor's body keep the first line alone: the
 * rest is the file's content. Without it six different `python3 -c "` scripts were one command run six times.
 */
export function commandHead(command: string): string {
  if (!command.includes('\n')) return command;
  // (Only its first lines can matter: a long script is not split whole.)
  const lines = command.split('\n', HEAD_SCAN_LINES);
  // A script that starts by changing directory, or with a comment: the comment and its first command.
  let at = 0;
  let comment: string | undefined;
  for (; at < lines.length - 1; at++) {
    const line = lines[at]!;
    if (line.trim() === '' || CD_ONLY.test(line)) continue;
    if (!/^\s*#/.test(line)) break;
    comment ??= line.trim();
  }
  const rest = lines.slice(at);
  if (/^\s*#/.test(rest[0]!)) return comment ?? rest[0]!.trim();
  const head = headOf(rest);
  return comment === undefined ? head : `${comment}; ${head}`;
}

/** A command's first line and what it leaves open (`commandHead`). */
function headOf(lines: readonly string[]): string {
  const first = lines[0]!;
  if (lines.length === 1 || RANGE_EDIT.test(first.trim())) return first;
  const here = HERE_STRING.exec(first);
  if (here) {
    // PowerShell's here-string (`@'` … `'@ | & python.exe -`): the program it is given to, then its first lines.
    const close = hereStringEnd(lines, 0, here[1]!);
    const runner =
      close < 0
        ? ''
        : lines[close]!.slice(2)
            .replace(/^\s*\|\s*(?:&\s*)?/, '')
            .trim();
    const opener = first.slice(0, here.index).trim();
    const body = lines.slice(1, close < 0 ? lines.length : close);
    return joinLines([runner, opener, `@${here[1]}`].filter((t) => t !== '').join(' '), body, ' ');
  }
  const heredoc = HEREDOC.exec(first);
  if (heredoc) {
    const end = lines.findIndex((l, i) => i > 0 && l.trim() === heredoc[2]);
    const body = lines.slice(1, end < 0 ? lines.length : end);
    if (/\$\(\s*cat\s+<<-?\s*['"]?\w+['"]?\s*$/.test(first)) {
      // `"$(cat <<'EOF'`: the text it gives, by its first line, then what follows the `)` that closes it.
      const text = body.find((l) => l.trim() !== '')?.trim() ?? '';
      const after = end < 0 ? '' : (lines[end + 1] ?? '').replace(/^\s*\)/, '');
      return `${first.slice(0, first.lastIndexOf('$('))}${text}${after}`;
    }
    return INTERPRETER.test(tokenize(withoutLeadingCd(first))[0] ?? '') ? joinLines(first, body, ' ') : first;
  }
  let head = first;
  for (let i = 1; i < lines.length && i < HEAD_LINES && head.length < HEAD_CHARS; i++) {
    const next = lines[i]!.trim();
    if (head.endsWith('\\')) head = `${head.slice(0, -1).trimEnd()} ${next}`;
    else if (quoteLeftOpen(head))
      head = next === '' ? head : `${head}${/["']$|^["']/.test(next) || /["']$/.test(head) ? '' : '; '}${next}`;
    else break;
  }
  return head;
}

const HEREDOC = /<<-?\s*(['"]?)(\w+)\1/;
/**
 * A line that opens a PowerShell here-string (`@'` or `@"` last on it, alone or after `=`, `(` or a space: not `echo
 * 'me@'`); a line starting `'@` / `"@` closes it.
 */
const HERE_STRING = /(?:^|[\s=(])@(['"])\s*$/;
/** The line that closes a here-string opened on line `at` with `quote` (it starts `'@` / `"@`), or -1. */
const hereStringEnd = (lines: readonly string[], at: number, quote: string): number => {
  for (let i = at + 1; i < lines.length; i++) if (lines[i]!.startsWith(`${quote}@`)) return i;
  return -1;
};
const CD_ONLY = /^\s*cd\s+(?:"[^"]*"|'[^']*'|[^\s;&|]+)\s*;?\s*$/;
/** Programs that run the script a heredoc gives them (`python3 - <<'EOF'`, `psql <<SQL`). */
const INTERPRETER = /^(?:python\d*(?:\.\d+)?|node|ruby|perl|bash|sh|zsh|psql|mysql|sqlite3|php|Rscript)$/;
const HEAD_LINES = 12;
const HEAD_SCAN_LINES = 400;
const HEAD_CHARS = 200;

const joinLines = (first: string, body: readonly string[], sep: string): string => {
  let head = first;
  for (const line of body) {
    if (head.length >= HEAD_CHARS) break;
    if (line.trim() !== '') head = `${head}${sep}${line.trim()}`;
  }
  return head;
};

/** Whether a shell line ends inside a quoted string (`python3 -c "` and not yet its closing quote). */
function quoteLeftOpen(line: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === undefined) {
      if (c === '\\') i++;
      else if (c === '"' || c === "'") quote = c;
    } else if (c === quote) quote = undefined;
    else if (c === '\\' && quote === '"') i++;
  }
  return quote !== undefined;
}

/**
 * `git add a.py b.py && git commit -m "Fix"` → `git commit -m "Fix"`: what was staged is in the files touched, the
 * commit's message is what tells it (and a long list of files would cut it off).
 */
const withoutStaging = (line: string): string => line.replace(/^git add\s(?:[^&|;]|&(?!&))*&&\s*(?=git commit\b)/, '');

/**
 * `cd /repo && npm test` → `npm test`, `sleep 5 && curl …` → `curl …`: the directory and a wait before it are noise in
 * a summary line (and a run after `sleep 3` is the same command as one after `sleep 5`).
 */
export const withoutLeadingCd = (line: string): string => {
  const stripped = line.replace(
    /^\s*(?:cd\s+(?:"[^"]*"|'[^']*'|[^\s;&|]+)|sleep\s+\d+(?:\.\d+)?[smh]?)\s*(?:&&|;)\s*/,
    '',
  );
  return stripped === line || stripped.trim() === '' ? line.trim() : withoutLeadingCd(stripped);
};

/** A shell line with its quoted strings emptied (`echo "a > b"` → `echo ''`): operators in them are text. */
const withoutQuotedText = (line: string): string => line.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''");

/** Programs that only look around: list, find, search, show a file or move in it, print where one is. */
const LOOKING_AROUND =
  /^(?:ls|ll|tree|pwd|cd|find|fd|locate|grep|egrep|rg|ag|cat|head|tail|less|more|nl|wc|file|stat|which|whereis|type|echo|open|goto|scroll_up|scroll_down|search_dir|search_file|find_file|get-childitem|gci|dir|get-content|gc|select-string|sls|get-item|get-location|test-path|get-command)$/i;

/**
 * Writes a file or acts on what it finds, whatever the program: `> out`, `>> log`, `| tee f`, `find -delete/-exec`
 * (not `2>&1`, `2>/dev/null`: where its messages go).
 */
const CHANGES_SOMETHING = /(?:^|[^\d&>])1?>>?\s*(?!&|\/dev\/null)[^\s&>]|\|\s*tee\b|\s-(?:delete|exec|execdir|ok)\b/;

/**
 * A command that only looks around (`ls -F`, `find_file x.py`, `grep -n foo a.py`, `open a.py 40`): what it showed is
 * in the files and symbols of a summary, its line in Commands run tells less than one of a command that ran something.
 * (`cat > a.py <<EOF` writes: not looking around.)
 */
export function looksAround(command: string): boolean {
  const line = withoutLeadingCd(commandHead(command));
  return LOOKING_AROUND.test(tokenize(line)[0] ?? '') && !CHANGES_SOMETHING.test(withoutQuotedText(line));
}

/** Programs that only show what is there (and git's commands that do). */
const SHOWING =
  /^(?:ls|ll|tree|find|fd|grep|egrep|fgrep|rg|ag|ack|cat|head|tail|less|more|nl|wc|file|stat|echo|printf)$/;
const GIT_SHOWING = /^git\s+(?:log|show|diff|status|blame|branch|tag|ls-files|grep)\b/;
/** What shows a CI run, its report or its log (`gh run view 123 --log-failed`, `gh pr checks`, `glab ci view`). */
export const CI_VIEWING = /^(?:gh\s+(?:run\s+(?:view|watch)|pr\s+checks)|glab\s+ci\s+(?:view|status|trace))\b/;
/**
 * What shows a service's log (`docker logs web`, `docker compose logs api`, `kubectl logs deploy/api`, `journalctl -u
 * app`) or a CI run's.
 */
export const LOG_SHOWING = new RegExp(
  String.raw`^(?:docker(?:\s+compose)?|docker-compose|podman|kubectl|heroku|flyctl|fly|pm2)\b[^|;&]*\slogs\b|^journalctl\b|${CI_VIEWING.source}`,
);

/**
 * A command whose every part only shows what is there (`cat app.log`, `grep -rn Error src | head`, `git log`,
 * `docker logs web`): what it printed is data (a log's traceback, a README's `Command not found:`, a commit's
 * subject), not its failure.
 * (Not SWE-agent's `open` or `goto`: their messages are their own.)
 */
export function showsOnly(command: string): boolean {
  const line = withoutQuotedText(withoutLeadingCd(commandHead(command)));
  if (CHANGES_SOMETHING.test(line)) return false;
  const parts = segmentsOf(line).map((part) => part.trim());
  return (
    parts.length > 0 &&
    parts.every((part) => SHOWING.test(tokenize(part)[0] ?? '') || GIT_SHOWING.test(part) || LOG_SHOWING.test(part))
  );
}

/** The programs a shell line runs, one per command (`cat a.log | grep "x|y"` → `cat`, `grep`). */
export const programsOf = (line: string): string[] => segmentsOf(line).map((part) => tokenize(part.trim())[0] ?? '');

/** A pipe into a program that keeps some of the lines it is given (`grep error`, `Select-String`, `awk '/x/'`). */
const PIPED_INTO_FILTER =
  /\|\s*(?:grep|egrep|fgrep|rg|ag|ack|awk|sed|cut|uniq|wc|jq|findstr|select-string|sls|where-object)\b/i;
/** A pipe into `head` or `tail` (PowerShell's `Select-Object -First/-Last`), with its options. */
const PIPED_INTO_HEAD_TAIL = /\|\s*(?:head|tail|select-object\s+-(?:first|last))\b([^|;&]*)/i;

/**
 * Whether a command's `output` may be only part of what it printed: a pipe into a filter, or into `head`/`tail` whose
 * output filled its count (10 lines unless `-n N`, `-N` or a count says otherwise; a byte count always).
 */
export function outputMayBePartial(command: string, output: string): boolean {
  const line = withoutQuotedText(commandHead(command));
  if (PIPED_INTO_FILTER.test(line)) return true;
  const cut = PIPED_INTO_HEAD_TAIL.exec(line);
  if (!cut) return false;
  if (/(?:^|\s)(?:-c|--bytes)\b/.test(cut[1]!)) return true;
  const count = Number(/(\d+)/.exec(cut[1]!)?.[1] ?? 10);
  return output.split('\n').filter((l) => l.trim() !== '').length >= count;
}

/** A shell line up to its first pipe outside quotes (`grep -E "a|b" src | head` → `grep -E "a|b" src`). */
const beforePipe = (line: string): string => /^(?:'[^']*'|"(?:[^"\\]|\\.)*"|\|\||[^'"|])*/.exec(line)![0];

/**
 * `npm run check 2>&1 | head -40` and `npm run check` are the same operation for "was it fixed later" (two seds
 * whose scripts use `|` are not: `sed -i '' 's|a|b|g' x.ts`).
 */
const commandKey = (line: string): string =>
  beforePipe(line)
    .replace(/\s\d?>&\d|\s\d?>>?\s*\S+/g, '')
    .replace(/\s+/g, ' ')
    .trim();

const oneLine = (s: string, max: number): string => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
};

/** Test runners: a later passing run of the whole suite resolves a failed run of part of it. */
const TEST_RUNNER =
  /^(?:python\d*(?:\.\d+)?\s+-m\s+pytest|pytest|py\.test|(?:npx\s+)?(?:jest|vitest|mocha)|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|go\s+test|cargo\s+test|mvn\s+test|gradle\s+test|tox|nox)\b/;
/** Programs that run a script or a test file: the file run is the target a later success must share. */
const RUNNER =
  /^(?:python\d*(?:\.\d+)?|pytest|py\.test|node|deno|bun|tsx|ts-node|ruby|perl|php|bash|sh|zsh|go|cargo|java|jest|vitest|mocha|npx|pnpm|yarn|npm|Rscript|julia|lua|dotnet)$/;

/**
 * Resolution targets of a shell command line: `run:` its key, `script:` the script or test file it runs (pytest
 * node ids and line suffixes dropped), `suite:` the test runner when it runs the whole suite (no file operand),
 * `within:` the test runner when it runs part of it.
 */
export function commandTargets(line: string, onFile?: string): string[] {
  const key = commandKey(line);
  // The same command on another file (SWE-agent's `edit 1:3` edits the file opened last) is another operation.
  const targets = [onFile === undefined ? `run:${key}` : `run:${key} on ${onFile}`];
  // A range edit whose file is not known (the file was opened before an earlier note condensed it): any later range
  // edit that succeeds resolves it (resolvedTargets), as the agent's next try at the same change.
  if (onFile === undefined && RANGE_EDIT.test(key)) targets.push(RANGE_EDIT_UNKNOWN_FILE);
  const tokens = tokenize(key);
  const verb = tokens[0] ?? '';
  const scriptVerb = verb.startsWith('./') && looksLikePath(verb);
  if (scriptVerb) targets.push(`script:${verb.replace(/^\.\//, '')}`);
  let script: string | undefined;
  if (RUNNER.test(verb)) {
    script = tokens
      .slice(1)
      .filter((t) => !t.startsWith('-'))
      .map((t) => t.replace(/::.*$/, '').replace(/:\d+$/, ''))
      .find((t) => looksLikePath(t) && /\.\w+$|\//.test(t));
    if (script) targets.push(`script:${script.replace(/^\.\//, '')}`);
  }
  const runner = TEST_RUNNER.exec(key);
  if (runner) {
    // One runner however invoked: `python -m pytest` is `pytest`, `npx jest` is `jest`, `npm run test` is `npm test`.
    const name = runner[0]
      .replace(/\s+/g, ' ')
      .replace(/^python\S* -m /, '')
      .replace(/^npx /, '')
      .replace(/ run test$/, ' test')
      .replace(/^py\.test$/, 'pytest');
    const operands = tokenize(key.slice(runner[0].length)).filter((t) => !t.startsWith('-') && t !== '--');
    targets.push(operands.length === 0 ? `suite:${name}` : `within:${name}`);
  }
  if (checksWholeProject(key)) targets.push(TYPE_CHECK);
  targets.push(...checkedPaths(key));
  return targets;
}

/**
 * Linters and type checkers that check the paths they are given (the whole project with none): ruff, flake8, pylint,
 * mypy, pyright, eslint, biome, golangci-lint, however invoked (`npx eslint`, `python -m mypy`, `uv run ruff check`).
 */
const PATH_CHECKER =
  /^(?:(?:npx|bunx|pnpm\s+(?:exec|dlx)|yarn|uv\s+run|poetry\s+run|python\d*(?:\.\d+)?\s+-m)\s+)?(ruff(?:\s+check)?|flake8|pylint|mypy|pyright|basedpyright|eslint|biome\s+(?:check|lint)|golangci-lint\s+run)(?=\s|$)/;
/** `check:ruff:src/a.py`: what a checker's run checked, each path it was given (`.` for none). */
const CHECKED = 'check:';

/** The paths a checker's run covers, as targets (`failureTargets` files an error of it under each parent too). */
function checkedPaths(key: string): string[] {
  const checker = PATH_CHECKER.exec(key);
  if (!checker) return [];
  const program = checker[1]!.split(/\s+/)[0]!;
  const paths = tokenize(key.slice(checker[0].length))
    .filter((t) => /^[\w.@~/-]+$/.test(t) && !t.startsWith('-') && !/^\d+$/.test(t))
    .map((t) => t.replace(/^\.\//, '').replace(/\/+$/, '') || '.');
  return (paths.length === 0 ? ['.'] : paths).map((p) => `${CHECKED}${program}:${p}`);
}

/** `check:ruff:src/a.py` and its parents' (`check:ruff:src`, `check:ruff:.`): a later pass of any of them covers it. */
const withParents = (target: string): string[] => {
  const at = target.indexOf(':', CHECKED.length);
  const head = target.slice(0, at + 1);
  const parts = target.slice(at + 1).split('/');
  const out = [target, `${head}.`];
  for (let n = parts.length - 1; n > 0; n--) out.push(`${head}${parts.slice(0, n).join('/')}`);
  return out;
};

/**
 * A TypeScript type check of a whole project: `tsc`, `tsgo`, `vue-tsc` or `svelte-check` (however invoked) with no
 * file operand (`-p tsconfig.json` and `-b` name a project), or a package script by a name projects give the check
 * (`npm run typecheck`, `pnpm check`).
 */
const TYPE_CHECKER = /^(?:(?:npx|bunx|pnpm\s+(?:exec|dlx)|yarn)\s+)?(?:tsc|tsgo|vue-tsc|svelte-check)(?=\s|$)/;
const TYPE_CHECK_SCRIPT =
  /^(?:npm\s+run|pnpm(?:\s+run)?|yarn\s+run|bun\s+run)\s+(?:check|typecheck|type-check|check-types|check:types|types|tsc)(?:\s|$)/;
function checksWholeProject(key: string): boolean {
  if (TYPE_CHECK_SCRIPT.test(key)) return true;
  const checker = TYPE_CHECKER.exec(key);
  if (!checker) return false;
  const words = tokenize(key.slice(checker[0].length));
  return words.every((w, i) => w.startsWith('-') || /^(?:-p|--project)$/.test(words[i - 1] ?? ''));
}
/** The target a whole-project type check shares with every TypeScript diagnostic (`failureTargets`). */
const TYPE_CHECK = 'typecheck:ts';
/** A TypeScript diagnostic: `src/a.ts(3,5): error TS2322: …`, `src/a.ts:3:5 - error TS2322: …`. */
const TS_DIAGNOSTIC = /\berror TS\d+:/;

/**
 * The targets an error with `line` is resolved through: its call's; a checker's run on a path, by a later pass of the
 * same checker on it or a directory above it (`ruff check src/a.py` by `ruff check .`); and — a TypeScript
 * diagnostic, whichever command said it (a check of a few files, a build, a package script) — a later type check of
 * the whole project passing; not another error of a check script (a linter's, say).
 */
export const failureTargets = (targets: readonly string[], line: string): string[] => {
  const own = TS_DIAGNOSTIC.test(line) ? [...targets, TYPE_CHECK] : targets.filter((t) => t !== TYPE_CHECK);
  return [...new Set(own.flatMap((t) => (t.startsWith(CHECKED) ? withParents(t) : [t])))];
};

/** A file action's kind for resolution: a change (edit, write), a read, or the tool's own action. */
const actionKind = (action: FileAction): string => (isChange(action) ? 'change' : action);

/**
 * The error targets a later success with `success` targets resolves: the ones it shares, and the parts of a suite
 * it ran whole. (Another part of a suite passing says nothing of the part that failed: `within:` resolves nothing.)
 */
export function resolvedTargets(success: readonly string[]): string[] {
  const out: string[] = [];
  for (const t of success) {
    if (!t.startsWith('within:')) out.push(t);
    if (t.startsWith('suite:')) out.push(`within:${t.slice(6)}`);
    // (A range edit's target names its file: `run:edit 5:5 on a.py`.)
    if (t.startsWith('run:') && RANGE_EDIT.test(t.slice(4).replace(/ on \S+$/, ''))) out.push(RANGE_EDIT_UNKNOWN_FILE);
  }
  return [...new Set(out)];
}

/**
 * SWE-agent's edit of the file opened last, its body on the lines after it: `edit N:M` (those lines), or a bare `edit`
 * (between the cursors of its cursor-window configuration). Matched on a command's first line.
 */
const RANGE_EDIT = /^edit(?: \d+:\d+)?[ \t]*(?:\n|$)/;
const RANGE_EDIT_WHOLE = /^\s*edit(?: (\d+):\d+)?[ \t]*\n([\s\S]*?)^end_of_edit\b/m;

/** SWE-agent's range edit in a script: the first line it replaces (`edit 1475:1480`) and the lines it puts there. */
export function rangeEditOf(script: string): { readonly first?: number; readonly body: string } | undefined {
  const m = RANGE_EDIT_WHOLE.exec(script);
  if (!m) return undefined;
  return m[1] === undefined ? { body: m[2]! } : { first: Number(m[1]), body: m[2]! };
}

/**
 * Whether a failed result means the call's changes were not made: a file tool's (an edit whose old text was not
 * found), SWE-agent's range edit (refused for a syntax error), one shell command that changes one file; a shell line
 * of several commands may have changed files before it failed.
 */
export const changesAllOrNothing = (activity: ToolActivity): boolean =>
  activity.command === undefined || RANGE_EDIT.test(activity.command) || changesOneFile(activity);

/** An action that changes its file, a restore included (`git restore a.py`): recorded with the call's result. */
export const changesFile = (action: FileAction): boolean => isChange(action) || action === 'restore';

/**
 * One shell command, a `cd` before it at most, that changes one file (`rm a.ts`, `sed -i … a.ts`, `git restore a.ts`)
 * or moves one (`mv a.ts b.ts`): when it fails (`rm: cannot remove`, `sed: can't read`, `pathspec … did not match`),
 * nothing changed.
 */
function changesOneFile(activity: ToolActivity): boolean {
  const script = (activity.script ?? activity.command ?? '').trim();
  if (script.includes('\n')) return false;
  const commands = segmentsOf(script)
    .map((part) => part.trim())
    .filter((part) => !/^cd\b/.test(part));
  if (commands.length !== 1) return false;
  const changed = activity.files.filter((f) => changesFile(f.action));
  return (
    changed.length === 1 || (changed.length === 2 && changed[0]!.action === 'delete' && changed[1]!.action === 'write')
  );
}
const RANGE_EDIT_UNKNOWN_FILE = 'change:(range edit of an unknown file)';

/**
 * The targets of an error line's label (`tool target` or `tool command on path`), for an error read back from an
 * earlier summary: the same rules as for a call, as far as the label tells.
 */
export function labelTargets(label: string): string[] {
  const at = label.indexOf(' ');
  if (at < 0) return [`label:${label}`];
  const tool = label.slice(0, at);
  let rest = label.slice(at + 1).trim();
  if (SHELL_TOOL.test(tool)) {
    const on = / on (\S+)$/.exec(rest);
    if (on) rest = rest.slice(0, on.index);
    return [...(on ? [`change:${on[1]}`] : []), ...commandTargets(rest.replace(/…$/, ''), on?.[1])];
  }
  return looksLikePath(rest) ? [`${actionKind(actionOfTool(tool))}:${rest}`] : [`label:${label}`];
}

/**
 * A command as its text: a string, or an argv array (Codex's `["bash", "-lc", "npm test"]`: the script a shell is
 * given with `-c`/`-lc`, else the words as a shell would take them back: `awk '/## Usage/ {print}' README.md`, and
 * a `&` passed as a word is `'&'`, not a background job).
 */
function commandText(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v.trim();
  if (!Array.isArray(v) || v.length === 0 || !v.every((w) => typeof w === 'string')) return undefined;
  const words = v as string[];
  const script = words.findIndex((w) => /^-\w*c$/.test(w));
  const text =
    script > 0 && /(?:^|\/)(?:ba|z|da)?sh$/.test(words[0]!)
      ? words.slice(script + 1).join(' ')
      : words.map(shellWord).join(' ');
  return text.trim() === '' ? undefined : text.trim();
}

/** One argv word as a shell would read it back: as it is when plain, else in single quotes. */
const shellWord = (w: string): string => (/^[\w@%+=:,./~-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

const PATCH_HEADER =
  /^\*\*\* (Add|Update|Delete) File: (.+)$|^--- (?:a\/)?(.+?)(?:\t.*)?\n\+\+\+ (?:b\/)?(.+?)(?:\t.*)?$|^\+\+\+ (?:b\/)?(.+?)(?:\t.*)?$/gm;
const PATCH_ACTION: Readonly<Record<string, FileAction>> = { Add: 'write', Update: 'edit', Delete: 'delete' };

/**
 * Files a patch's headers name: `*** Update File: src/a.ts` (edit), `*** Add File:` (write), `*** Delete File:`
 * (delete); a unified diff's `--- a/x` / `+++ b/x` (edit), from `/dev/null` (write), to `/dev/null` (delete).
 */
export function filesOfPatch(text: string): { path: string; action: FileAction }[] {
  if (!text.includes('*** ') && !text.includes('+++ ')) return [];
  const out: { path: string; action: FileAction }[] = [];
  for (const m of text.matchAll(PATCH_HEADER)) {
    const [, kind, named, from, to, alone] = m;
    const file =
      kind !== undefined
        ? { path: named!.trim(), action: PATCH_ACTION[kind]! }
        : to === '/dev/null'
          ? { path: from!.trim(), action: 'delete' }
          : { path: (to ?? alone)!.trim(), action: from === '/dev/null' ? 'write' : 'edit' };
    if (file.path === '/dev/null' || !looksLikePath(file.path) || out.some((f) => f.path === file.path)) continue;
    out.push(file);
    if (out.length >= 50) break;
  }
  return out;
}

/** An edit block as agents without file tools write them: a path on its own line, a fence, `<<<<<<< SEARCH`. */
const SEARCH_REPLACE =
  /^[ \t]*`?([^\s`]+)`?[ \t]*\n[ \t]*(?:```|~~~)[\w+-]*[ \t]*\n<<<<<<< SEARCH\n([\s\S]*?)^=======$/gm;

/**
 * Files an assistant's text edits in place of a tool call: SEARCH/REPLACE blocks (an empty SEARCH writes a new file)
 * and patches (`*** Update File:`, `+++ b/…`).
 */
export function filesOfEditBlocks(text: string): { path: string; action: FileAction }[] {
  const out = filesOfPatch(text);
  if (!text.includes('<<<<<<< SEARCH')) return out;
  for (const m of text.matchAll(SEARCH_REPLACE)) {
    const path = m[1]!;
    if (!looksLikePath(path) || out.some((f) => f.path === path)) continue;
    out.push({ path, action: m[2]!.trim() === '' ? 'write' : 'edit' });
    if (out.length >= 50) break;
  }
  return out;
}

/** The argument pairs a file-moving tool names its source and destination by. */
const TRANSFER_KEYS = [
  ['source', 'destination'],
  ['old_path', 'new_path'],
  ['oldPath', 'newPath'],
  ['sourcePath', 'destinationPath'],
  ['from', 'to'],
  ['src', 'dst'],
] as const;

/**
 * A move or rename deletes its source and writes its destination (into a directory: its name there), as `mv` is read
 * (`transferred`); a copy reads the one and writes the other.
 */
function filesOfTransfer(name: string, args: Record<string, unknown>): { path: string; action: FileAction }[] {
  const kind = /move|rename|(?:^|_)mv$/i.test(name) ? 'move' : /copy|(?:^|_)cp$/i.test(name) ? 'copy' : undefined;
  if (kind === undefined) return [];
  for (const [from, to] of TRANSFER_KEYS) {
    const [source, destination] = [args[from], args[to]];
    if (typeof source !== 'string' || typeof destination !== 'string') continue;
    const moved = transferred(kind, [source.trim()], destination.trim());
    if (moved.length > 0) return moved;
  }
  return [];
}

const BACKGROUND_FLAG = /^(?:run_in_background|is_background|background|in_background|async|run_async|detach(?:ed)?)$/i;
/** `cmd &` (not `&&`, `2>&1`, `&>`, `|&`, nor an `&` inside a word), and the programs that detach a command. */
const BACKGROUND_AMPERSAND = /(?<![&>|<])&(?=\s|$|[;)])/;
const DETACHING_PROGRAM = /(?:^|[\s;&|(])(?:nohup|setsid|disown)(?:\s|$)/;

/** Whether a call's arguments or its shell command (quoted text and file bodies left out) ask for a background run. */
function asksForBackground(args: Record<string, unknown>, command: string | undefined): boolean {
  for (const [key, value] of Object.entries(args))
    if (BACKGROUND_FLAG.test(key) && (value === true || value === 'true')) return true;
  if (command === undefined) return false;
  for (const raw of commandLines(command)) {
    const line = withoutQuotedText(raw);
    if (DETACHING_PROGRAM.test(line) || BACKGROUND_AMPERSAND.test(line)) return true;
  }
  return false;
}

/** A patch file (`fix.patch`, `changes.diff`). */
const PATCH_FILE = /\.(?:patch|diff)$/i;
/** A command that applies a patch: `git apply`, `git am`, `patch`. */
const APPLIES_PATCH = /(?:^|[\s;&|(])(?:git\s+(?:apply|am)|patch)\s/;
/** The patch file a command applies: `git apply --3way fix.patch`, `patch -p1 < fix.patch`, `patch -p1 -i fix.diff`. */
const APPLIED_PATCH_FILE =
  /(?:^|[\s;&|(])(?:git\s+(?:apply|am)|patch)\s+(?:[^|;&\n<>]*?\s)?(?:<\s*|-i\s*)?["']?([^\s"'|;&<>]+\.(?:patch|diff))\b/gi;

/** What a call leaves for the calls after it: SWE-agent's open file, the patches written. */
export interface ShellState {
  lastOpened?: string;
  /** The files each patch file written so far changes (`fix.patch` → its headers' files): what applying it changes. */
  patches?: Map<string, readonly { path: string; action: FileAction }[]>;
  /**
   * The file open before the call when no call read so far opened one: a range edit's file, opened before the
   * messages read (by messages a note condensed), looked up in the session's earlier messages.
   */
  openedEarlier?: () => string | undefined;
}

/** Reads a call; `state.lastOpened` follows SWE-agent's notion of the currently open file across calls. */
export function toolActivity(call: ToolCall, state: ShellState): ToolActivity {
  const args = parseArguments(call.arguments) ?? {};
  const files: { path: string; action: FileAction }[] = [];
  const sub = typeof args.command === 'string' && !SHELL_TOOL.test(call.name) ? args.command : undefined;
  // A range edit read back from a note's step line (`bash \`edit 5:5\` on a.py`) carries the file it changed.
  const rangeEditOf =
    SHELL_TOOL.test(call.name) &&
    typeof args.command === 'string' &&
    RANGE_EDIT.test(args.command) &&
    typeof args.path === 'string' &&
    looksLikePath(args.path)
      ? args.path
      : undefined;
  for (const key of rangeEditOf === undefined ? PATH_KEYS : []) {
    const v = args[key];
    if (typeof v === 'string' && looksLikePath(v.trim())) {
      files.push({ path: v.trim(), action: actionOfTool(call.name, sub) });
      break;
    }
  }
  // A tool that moves, renames or copies a file (`move_file`, `rename_file`, `copy_file`): from its source to its
  // destination, as `mv` and `cp` are read.
  if (files.length === 0) files.push(...filesOfTransfer(call.name, args));
  // A tool given several files at once (Gemini CLI's read_many_files `paths`): each of them, up to a bound.
  for (const key of PATH_LIST_KEYS) {
    const v = args[key];
    if (files.length > 0 || !Array.isArray(v)) continue;
    for (const p of v.slice(0, MAX_LISTED_PATHS))
      if (typeof p === 'string' && looksLikePath(p.trim()))
        files.push({ path: p.trim(), action: actionOfTool(call.name, sub) });
  }
  let command: string | undefined;
  if (SHELL_TOOL.test(call.name)) {
    for (const key of COMMAND_KEYS) {
      const v = commandText(args[key]);
      if (v !== undefined) {
        command = v;
        break;
      }
    }
  }
  if (command !== undefined) {
    const opened =
      rangeEditOf ??
      state.lastOpened ??
      (state.openedEarlier && RANGE_EDIT.test(withoutLeadingCd(command)) ? state.openedEarlier() : undefined);
    const parsed = filesOfShellCommand(command, opened);
    state.lastOpened = parsed.lastOpened;
    files.push(...parsed.files);
  } else if (files[0] && (files[0].action === 'read' || files[0].action === 'write' || files[0].action === 'edit')) {
    state.lastOpened = files[0].path;
  }
  // A patch names its files in its headers (Codex's apply_patch, `git apply` of a unified diff): in an argument,
  // or in a command's heredoc. A patch written to a file changes them when a later call applies it.
  const patchFile = files.find((f) => PATCH_FILE.test(f.path) && (f.action === 'write' || f.action === 'edit'));
  if (patchFile !== undefined) {
    const named = Object.values(args).flatMap((v) => filesOfPatch(commandText(v) ?? ''));
    if (named.length > 0) (state.patches ??= new Map()).set(baseName(patchFile.path), named);
  }
  const appliesLater = patchFile !== undefined && !(command !== undefined && APPLIES_PATCH.test(command));
  if ((files.length === 0 || command !== undefined) && !appliesLater)
    for (const v of Object.values(args))
      for (const f of filesOfPatch(commandText(v) ?? '')) if (!files.some((g) => g.path === f.path)) files.push(f);
  // A patch file applied (`git apply fix.patch`, `patch -p1 < fix.patch`): the files its headers name.
  // (Not one that only checks it: `git apply --check`, `patch --dry-run`.)
  if (command !== undefined && state.patches !== undefined)
    for (const part of segmentsOf(command).filter((p) => !/\s--(?:check|stat|numstat|summary|dry-run)\b/.test(p)))
      for (const m of part.matchAll(APPLIED_PATCH_FILE))
        for (const f of state.patches.get(baseName(m[1]!)) ?? [])
          if (!files.some((g) => g.path === f.path)) files.push(f);
  // An editing tool that names no file edits the one open (SWE-agent's `edit` by search/replace or line range, its
  // `insert`); not a patch tool, whose files are in its patch's headers (unread ones name no file at all).
  if (files.length === 0 && command === undefined && classify(call.name) === 'edit' && !/patch/i.test(call.name)) {
    const open = state.lastOpened ?? state.openedEarlier?.();
    if (open !== undefined) {
      files.push({ path: open, action: 'edit' });
      state.lastOpened = open;
    }
  }
  const firstLine = command === undefined ? undefined : withoutLeadingCd(commandHead(command));
  const target = firstLine ?? files[0]?.path ?? '';
  // A command that changes a file it does not name (SWE-agent's `edit 10:12` edits the file opened last); named
  // relative to the directory it ran in, or by its name alone, it is named.
  const changed =
    firstLine === undefined
      ? undefined
      : files.find((f) => isChange(f.action) && !firstLine.includes(baseName(f.path)));
  // Computed on first use: most readers of an activity (a note's step lines) never ask.
  let targets: string[] | undefined;
  let background: boolean | undefined;
  const targetsOf = (): string[] => {
    if (targets) return targets;
    targets = [];
    if (firstLine !== undefined) {
      targets.push(...commandTargets(firstLine, changed?.path));
      // A change made by a command that also runs something is not resolved by another change alone.
      const runs = RUNNER.test(tokenize(commandKey(firstLine))[0] ?? '');
      if (!runs) for (const f of files) if (isChange(f.action)) targets.push(`change:${f.path}`);
    } else {
      for (const f of files) targets.push(`${actionKind(f.action)}:${f.path}`);
      if (files.length === 0) targets.push(`call:${call.name}\u0000${call.arguments}`);
    }
    return targets;
  };
  const label = changed
    ? `${oneLine(`${call.name} ${firstLine}`, 100)} on ${changed.path}`
    : firstLine === undefined && files[0]
      ? `${call.name} ${files[0].path}` // a file name is never cut
      : oneLine(target ? `${call.name} ${target}` : call.name, 120);
  return {
    files,
    ...(firstLine !== undefined ? { command: oneLine(withoutStaging(firstLine), 160), script: command } : {}),
    ...(changed && { changesUnnamed: changed.path }),
    ...(firstLine === undefined && isWebTool(call.name) && { webLookup: true }),
    label,
    key: `${call.name}\u0000${firstLine !== undefined ? commandKey(firstLine) : (files[0]?.path ?? call.arguments)}`,
    get targets() {
      return targetsOf();
    },
    get background() {
      return (background ??= asksForBackground(args, command));
    },
  };
}

/**
 * The activity of every call of the assistant messages, read once and in order (SWE-agent's open file is followed from
 * call to call): what the readers of one span share.
 */
export function activitiesOf(
  messages: readonly ChatMessage[],
  openedBefore?: (m: ChatMessage) => string | undefined,
): Map<ToolCall, ToolActivity> {
  const shell: ShellState = {};
  const out = new Map<ToolCall, ToolActivity>();
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    if (openedBefore) shell.openedEarlier = () => openedBefore(m);
    for (const call of m.toolCalls ?? []) out.set(call, toolActivity(call, shell));
  }
  return out;
}

/** How far back `openedBefore` looks for the file SWE-agent's editor had open. */
const OPENED_LOOKBACK = 1000;

/**
 * The file open (SWE-agent's `open`/`create`, or a file tool's read or change) before `messages[at]`: the last one a
 * call of the messages before it opened, up to OPENED_LOOKBACK messages back.
 */
export function openedBefore(messages: readonly ChatMessage[], at: number): string | undefined {
  for (let i = at - 1; i >= 0 && i >= at - OPENED_LOOKBACK; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant' || !m.toolCalls?.length) continue;
    for (let k = m.toolCalls.length - 1; k >= 0; k--) {
      const state: ShellState = {};
      toolActivity(m.toolCalls[k]!, state);
      if (state.lastOpened !== undefined) return state.lastOpened;
    }
  }
  return undefined;
}
