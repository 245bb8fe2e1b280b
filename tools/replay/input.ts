/**
 * The transcript format of ../shared/data/README.md: one JSON object per line, one session per object.
 * Parsing is strict about what the engine needs (roles, string contents, tool-call shapes) and names the
 * line and the field of the first problem it finds in a line; unknown extra fields are ignored.
 */
import type { ChatMessage, Role, ToolCall } from '@ctxledger/context-engine';

/** A message as written in the transcript file (the engine's ChatMessage, minus engine-only fields). */
export interface TranscriptMessage {
  role: Role;
  content: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
}

export interface TranscriptSession {
  readonly id: string;
  readonly source?: string;
  readonly meta?: Readonly<Record<string, unknown>>;
  readonly messages: readonly ChatMessage[];
}

/** A bad input line: 1-based line number, the offending field (JSON path in the line's object), what is wrong with it. */
export interface InputError {
  readonly line: number;
  readonly field: string;
  readonly message: string;
}

export type ParsedLine =
  | { readonly ok: true; readonly line: number; readonly session: TranscriptSession }
  | { readonly ok: false; readonly error: InputError };

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];

const describe = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'an array'
      : typeof v === 'string'
        ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)
        : typeof v;

class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function str(obj: Record<string, unknown>, key: string, path: string, required: boolean): string | undefined {
  const v = obj[key];
  if (v === undefined) {
    if (required) throw new FieldError(path, 'is missing');
    return undefined;
  }
  if (typeof v !== 'string') throw new FieldError(path, `must be a string, got ${describe(v)}`);
  return v;
}

function toolCall(raw: unknown, path: string): ToolCall {
  if (!isObject(raw)) throw new FieldError(path, `must be an object, got ${describe(raw)}`);
  const id = str(raw, 'id', `${path}.id`, true)!;
  if (id === '') throw new FieldError(`${path}.id`, 'must not be empty');
  const name = str(raw, 'name', `${path}.name`, true)!;
  if (raw['arguments'] !== undefined && typeof raw['arguments'] !== 'string') {
    throw new FieldError(
      `${path}.arguments`,
      `must be the call's input encoded as a JSON string, got ${describe(raw['arguments'])}`,
    );
  }
  return { id, name, arguments: (raw['arguments'] as string | undefined) ?? '' };
}

function message(raw: unknown, path: string): ChatMessage {
  if (!isObject(raw)) throw new FieldError(path, `must be an object, got ${describe(raw)}`);
  const role = raw['role'];
  if (role === undefined) throw new FieldError(`${path}.role`, 'is missing');
  if (typeof role !== 'string' || !ROLES.includes(role as Role)) {
    throw new FieldError(`${path}.role`, `must be one of ${ROLES.join(', ')}, got ${describe(role)}`);
  }
  const content = str(raw, 'content', `${path}.content`, true)!;
  const out: { -readonly [K in keyof ChatMessage]: ChatMessage[K] } = { role: role as Role, content };
  if (raw['toolCalls'] !== undefined) {
    if (role !== 'assistant')
      throw new FieldError(`${path}.toolCalls`, `only assistant messages carry tool calls (role is ${role})`);
    if (!Array.isArray(raw['toolCalls']))
      throw new FieldError(`${path}.toolCalls`, `must be an array, got ${describe(raw['toolCalls'])}`);
    out.toolCalls = raw['toolCalls'].map((c, j) => toolCall(c, `${path}.toolCalls[${j}]`));
  }
  for (const key of ['toolCallId', 'toolName'] as const) {
    const v = str(raw, key, `${path}.${key}`, false);
    if (v === undefined) continue;
    if (role !== 'tool') throw new FieldError(`${path}.${key}`, `only tool messages carry ${key} (role is ${role})`);
    out[key] = v;
  }
  if (raw['isError'] !== undefined) {
    if (typeof raw['isError'] !== 'boolean')
      throw new FieldError(`${path}.isError`, `must be a boolean, got ${describe(raw['isError'])}`);
    out.isError = raw['isError'];
  }
  return out;
}

/** Parse one line of a transcript file. `line` is its 1-based number (for the error). */
export function parseTranscriptLine(text: string, line: number): ParsedLine {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: { line, field: '(line)', message: `not valid JSON: ${(error as Error).message}` } };
  }
  try {
    if (!isObject(raw))
      throw new FieldError('(line)', `must be a JSON object describing one session, got ${describe(raw)}`);
    const id = str(raw, 'id', 'id', true)!;
    if (id.trim() === '') throw new FieldError('id', 'must not be empty');
    const source = str(raw, 'source', 'source', false);
    const meta = raw['meta'];
    if (meta !== undefined && meta !== null && !isObject(meta))
      throw new FieldError('meta', `must be an object, got ${describe(meta)}`);
    if (raw['messages'] === undefined) throw new FieldError('messages', 'is missing');
    if (!Array.isArray(raw['messages']))
      throw new FieldError('messages', `must be an array, got ${describe(raw['messages'])}`);
    const messages = raw['messages'].map((m, i) => message(m, `messages[${i}]`));
    const seen = new Map<string, number>();
    messages.forEach((m, i) =>
      m.toolCalls?.forEach((c, j) => {
        const first = seen.get(c.id);
        if (first !== undefined)
          throw new FieldError(
            `messages[${i}].toolCalls[${j}].id`,
            `${JSON.stringify(c.id)} was already used by messages[${first}]`,
          );
        seen.set(c.id, i);
      }),
    );
    return {
      ok: true,
      line,
      session: { id, ...(source !== undefined ? { source } : {}), ...(isObject(meta) ? { meta } : {}), messages },
    };
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, error: { line, field: error.field, message: error.message } };
    throw error;
  }
}

/**
 * Parse a whole transcript file: every non-blank line, in order. A duplicate session id is an error on the
 * later line. Bad lines do not stop the others.
 */
export function* parseTranscripts(text: string): Generator<ParsedLine> {
  const ids = new Map<string, number>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const body = lines[i]!.replace(/\r$/, '');
    if (body.trim() === '') continue;
    const parsed = parseTranscriptLine(body, i + 1);
    if (parsed.ok) {
      const first = ids.get(parsed.session.id);
      if (first !== undefined) {
        yield {
          ok: false,
          error: {
            line: i + 1,
            field: 'id',
            message: `id ${JSON.stringify(parsed.session.id)} was already used on line ${first}`,
          },
        };
        continue;
      }
      ids.set(parsed.session.id, i + 1);
    }
    yield parsed;
  }
}

/** Number of lines `parseTranscripts` will yield (for a progress bar). */
export const countSessionLines = (text: string): number => text.split('\n').filter((l) => l.trim() !== '').length;

/** An engine message back in the transcript format (only the fields the format has, in its key order). */
export function toTranscriptMessage(m: ChatMessage): TranscriptMessage {
  const out: TranscriptMessage = { role: m.role, content: m.content };
  if (m.toolCalls && m.toolCalls.length > 0)
    out.toolCalls = m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
  if (m.toolCallId !== undefined) out.toolCallId = m.toolCallId;
  if (m.toolName !== undefined) out.toolName = m.toolName;
  if (m.isError !== undefined) out.isError = m.isError;
  return out;
}

/** `line 3, field messages[2].role: must be one of …` */
export const formatInputError = (e: InputError): string => `line ${e.line}, field ${e.field}: ${e.message}`;
