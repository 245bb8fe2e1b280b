import type { BlockEdit, CompactionBlock } from '../model/block';
import type { ToolCall } from '../model/message';
import { isOriginal } from '../overlay';
import { looksLikeError, makeBlock, parseArguments, type StageContext } from './common';

const READ_TOOLS = new Set([
  'read',
  'read_file',
  'readfile',
  'file_read',
  'view',
  'view_file',
  'open',
  'open_file',
  'cat',
]);
const WRITE_TOOLS = new Set([
  'edit',
  'write',
  'write_file',
  'create',
  'create_file',
  'multiedit',
  'multi_edit',
  'str_replace',
  'insert',
  'notebookedit',
  'edit_file',
  'apply_edit',
]);
const PATH_KEYS = [
  'path',
  'file_path',
  'filePath',
  'file',
  'filename',
  'target_file',
  'absolute_path',
  'notebook_path',
];
const RANGE_KEYS = [
  'offset',
  'limit',
  'line',
  'lines',
  'start_line',
  'end_line',
  'startLine',
  'endLine',
  'view_range',
  'range',
  'line_range',
  'from',
  'to',
  'start',
  'end',
  'line_number',
];

export interface FileAccess {
  readonly kind: 'read' | 'write';
  readonly path: string;
  /** Canonical JSON of the range arguments; '' for a whole-file read. */
  readonly range: string;
}

/**
 * Classify a tool call from its name and parsed arguments only (never from content): a read or a write of
 * a path, or nothing. `str_replace_editor` is a read with `command: "view"` and a write otherwise.
 */
export function classifyFileAccess(call: Pick<ToolCall, 'name' | 'arguments'>): FileAccess | undefined {
  const args = parseArguments(call.arguments);
  if (!args) return undefined;
  const pathKey = PATH_KEYS.find((k) => typeof args[k] === 'string' && (args[k] as string).length > 0);
  if (!pathKey) return undefined;
  const path = args[pathKey] as string;
  const name = call.name.toLowerCase();
  let kind: 'read' | 'write' | undefined;
  if (name === 'str_replace_editor' || name === 'str_replace_based_edit_tool') {
    kind = args['command'] === 'view' ? 'read' : 'write';
  } else if (READ_TOOLS.has(name)) kind = 'read';
  else if (WRITE_TOOLS.has(name)) kind = 'write';
  if (!kind) return undefined;
  const rangeArgs: Record<string, unknown> = {};
  for (const k of RANGE_KEYS) if (args[k] !== undefined && args[k] !== null) rangeArgs[k] = args[k];
  return { kind, path, range: Object.keys(rangeArgs).length ? JSON.stringify(rangeArgs) : '' };
}

export const supersededPointer = (path: string, laterCallId: string, stale: boolean): string =>
  `[File ${path}: ${stale ? 'stale read (the file was edited afterwards)' : 'duplicate read'} — refer to the later read (call ${laterCallId}) below]`;

/**
 * Stage 3 (seed 002 stage 2, DESIGN lessons): an earlier read of a file is replaced by a pointer to a later
 * read that supersedes it — a whole-file read supersedes any earlier read of the path, a ranged read only an
 * earlier read of exactly the same range. Keyed on the tool call (name + path argument, result linked by
 * call id); failed reads are neither replaced nor used as the superseding read; assistant text and
 * unconsumed results are never touched.
 */
export function dedupeFileReads(ctx: StageContext): CompactionBlock | null {
  const { entries, protection, counter } = ctx;
  interface Read {
    readonly callId: string;
    readonly access: FileAccess;
    readonly resultIndex: number;
    readonly order: number;
  }
  const pendingCalls = new Map<string, { access: FileAccess; order: number }>();
  const reads: Read[] = [];
  const writes: { path: string; order: number }[] = [];
  entries.forEach((e, i) => {
    const m = e.message;
    for (const call of m.toolCalls ?? []) {
      const access = classifyFileAccess(call);
      if (!access) continue;
      if (access.kind === 'write') writes.push({ path: access.path, order: i });
      else pendingCalls.set(call.id, { access, order: i });
    }
    if (m.role === 'tool' && m.toolCallId && isOriginal(e)) {
      const p = pendingCalls.get(m.toolCallId);
      if (p && !looksLikeError(m))
        reads.push({ callId: m.toolCallId, access: p.access, resultIndex: i, order: p.order });
      pendingCalls.delete(m.toolCallId);
    }
  });
  const edits: BlockEdit[] = [];
  for (let r = 0; r < reads.length; r++) {
    const read = reads[r]!;
    if (protection.unconsumed.has(read.resultIndex) || read.resultIndex < protection.headEnd) continue;
    let later: Read | undefined;
    for (let s = reads.length - 1; s > r; s--) {
      const c = reads[s]!;
      if (c.access.path !== read.access.path || c.order <= read.order) continue;
      if (c.access.range === '' || c.access.range === read.access.range) {
        later = c;
        break;
      }
    }
    if (!later) continue;
    const stale = writes.some((w) => w.path === read.access.path && w.order > read.order && w.order < later.order);
    const e = entries[read.resultIndex]!;
    const replacement = { ...e.message, content: supersededPointer(read.access.path, later.callId, stale) };
    if (counter.message(replacement) >= e.tokens) continue;
    edits.push({ from: e.from, to: e.to, replacement: [replacement] });
  }
  return makeBlock(ctx, 'dedupe', edits);
}
