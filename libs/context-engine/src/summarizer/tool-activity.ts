import type { ToolCall } from '../model/message';

/** What one tool call did, as far as its name and JSON arguments tell: files it touched and the shell command it ran. */
export interface ToolActivity {
  readonly files: readonly { readonly path: string; readonly action: FileAction }[];
  /** The shell command, when the tool is a shell (first line only for multi-line scripts). */
  readonly command?: string;
  /** A short description of the call for notes: `bash \`npm test\``, `edit src/a.ts`. */
  readonly label: string;
  /** Key for "same operation again": the tool plus its path or command. */
  readonly key: string;
}

/** read, edit or write; for other tools that name a file (find_file, grep …) the tool's name. */
export type FileAction = string;

const PATH_KEYS = [
  'path',
  'file_path',
  'filePath',
  'filename',
  'file_name',
  'file',
  'target_file',
  'notebook_path',
] as const;
const COMMAND_KEYS = ['command', 'cmd', 'script'] as const;
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
  if (/str_replace|edit|patch|insert|replace|undo/i.test(s)) return 'edit';
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
  /^[\w@~./+-][\w@~./+,=-]*$/.test(s) &&
  /[./]/.test(s) &&
  !/^[\d.,:/+-]+$/.test(s) &&
  !/^\.+$/.test(s) &&
  !s.startsWith('/dev/') &&
  !/^[a-z]+:\/\//i.test(s);

const READ_VERBS = new Set(['cat', 'head', 'tail', 'less', 'more', 'nl', 'open', 'bat', 'view']);
const EDIT_VERBS = new Set(['vim', 'vi', 'nano', 'emacs', 'code', 'edit']);
const WRITE_VERBS = new Set(['create', 'touch']);
/** Flags whose next token is a value, not a file (head -n 20, tail -c 100, sed -e script). */
const flagTakesValue = (verb: string, flag: string): boolean =>
  verb === 'sed' ? /^-(?:e|f|l)$/.test(flag) : /^-(?:n|c)$/.test(flag);

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
    cwd && !p.startsWith('/') && !p.startsWith('~') ? `${cwd.replace(/\/+$/, '')}/${p.replace(/^\.\//, '')}` : p;
  const lines = command.split('\n');
  for (let li = 0; li < lines.length; li++) {
    const line = lines[li];
    const heredoc = /<<-?\s*['"]?(\w+)['"]?/.exec(line);
    for (const segment of line.split(/&&|\|\||;|\|(?!\|)/)) {
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
      for (let i = 0; i < args.length; i++) {
        if (args[i].startsWith('-')) {
          if (flagTakesValue(verb, args[i])) i++;
          continue;
        }
        operands.push(args[i]);
      }
      if (verb === 'sed') {
        const inPlace = args.some((a) => /^-i/.test(a));
        const hasScriptFlag = args.some((a) => a === '-e' || a === '-f');
        for (const p of (hasScriptFlag ? operands : operands.slice(1)).filter(looksLikePath)) {
          files.push({ path: resolve(p), action: inPlace ? 'edit' : 'read' });
        }
      } else if (verb === 'tee') {
        for (const p of operands.filter(looksLikePath)) files.push({ path: resolve(p), action: 'write' });
      } else if (verb === 'edit' && /^\d+:\d+$/.test(operands[0] ?? '')) {
        if (opened) files.push({ path: opened, action: 'edit' });
      } else if (READ_VERBS.has(verb) || EDIT_VERBS.has(verb) || WRITE_VERBS.has(verb)) {
        const action: FileAction = READ_VERBS.has(verb) ? 'read' : EDIT_VERBS.has(verb) ? 'edit' : 'write';
        const paths = (verb === 'open' || verb === 'create' ? operands.slice(0, 1) : operands)
          .filter(looksLikePath)
          .map(resolve);
        for (const p of paths) files.push({ path: p, action });
        if ((verb === 'open' || verb === 'create') && paths[0]) opened = paths[0];
      }
    }
    // Skip a heredoc body or an SWE-agent edit body: its lines are file content, not commands.
    const terminator = heredoc ? heredoc[1] : /^\s*edit\s+\d+:\d+\s*$/.test(line) ? 'end_of_edit' : undefined;
    if (terminator) {
      while (li + 1 < lines.length && lines[li + 1].trim() !== terminator) li++;
      li++;
    }
  }
  return { files, lastOpened: opened };
}

/** `cd /repo && npm test` → `npm test`: the directory is noise in a summary line. */
export const withoutLeadingCd = (line: string): string => {
  const stripped = line.replace(/^\s*cd\s+(?:"[^"]*"|'[^']*'|[^\s;&|]+)\s*&&\s*/, '');
  return stripped === line || stripped.trim() === '' ? line.trim() : withoutLeadingCd(stripped);
};

/** `npm run check 2>&1 | head -40` and `npm run check` are the same operation for "was it fixed later". */
const commandKey = (line: string): string =>
  line
    .split(/\|(?!\|)/)[0]
    .replace(/\s\d?>&\d|\s\d?>>?\s*\S+/g, '')
    .replace(/\s+/g, ' ')
    .trim();

const oneLine = (s: string, max: number): string => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
};

/** Reads a call; `state.lastOpened` follows SWE-agent's notion of the currently open file across calls. */
export function toolActivity(call: ToolCall, state: { lastOpened?: string }): ToolActivity {
  const args = parseArguments(call.arguments) ?? {};
  const files: { path: string; action: FileAction }[] = [];
  const sub = typeof args.command === 'string' && !SHELL_TOOL.test(call.name) ? args.command : undefined;
  for (const key of PATH_KEYS) {
    const v = args[key];
    if (typeof v === 'string' && looksLikePath(v.trim())) {
      files.push({ path: v.trim(), action: actionOfTool(call.name, sub) });
      break;
    }
  }
  let command: string | undefined;
  if (SHELL_TOOL.test(call.name)) {
    for (const key of COMMAND_KEYS) {
      const v = args[key];
      if (typeof v === 'string' && v.trim() !== '') {
        command = v.trim();
        break;
      }
    }
  }
  if (command !== undefined) {
    const parsed = filesOfShellCommand(command, state.lastOpened);
    state.lastOpened = parsed.lastOpened;
    files.push(...parsed.files);
  } else if (files[0] && (files[0].action === 'read' || files[0].action === 'write' || files[0].action === 'edit')) {
    state.lastOpened = files[0].path;
  }
  const firstLine = command === undefined ? undefined : withoutLeadingCd(command.split('\n')[0]);
  const target = firstLine ?? files[0]?.path ?? '';
  return {
    files,
    ...(firstLine !== undefined ? { command: oneLine(firstLine, 160) } : {}),
    label: oneLine(target ? `${call.name} ${target}` : call.name, 120),
    key: `${call.name}\u0000${firstLine !== undefined ? commandKey(firstLine) : (files[0]?.path ?? call.arguments)}`,
  };
}
