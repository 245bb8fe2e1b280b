import type { ChatMessage, Role } from '../model/message';
import { resolveToolResultCallIds } from '../repair';

/**
 * The effective history in each provider's wire shape. Rendering never repairs: pass the history
 * through `repairToolPairs` first if it may be broken. Images are not rendered (the engine only keeps
 * their sizes).
 */
export interface RenderOptions {
  /** A system prompt to put first (OpenAI, generic) or into `system` (Anthropic), before any system messages. */
  readonly system?: string;
}

// ---------------------------------------------------------------------------------------------------
// OpenAI chat completions

export interface OpenAIToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export type OpenAIChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: readonly OpenAIToolCall[] }
  | { readonly role: 'tool'; readonly content: string; readonly tool_call_id: string };

export function renderOpenAI(messages: readonly ChatMessage[], opts: RenderOptions = {}): OpenAIChatMessage[] {
  const callIds = resolveToolResultCallIds(messages);
  const out: OpenAIChatMessage[] = opts.system ? [{ role: 'system', content: opts.system }] : [];
  messages.forEach((m, i) => {
    switch (m.role) {
      case 'system':
      case 'user':
        out.push({ role: m.role, content: m.content });
        return;
      case 'assistant': {
        const calls = m.toolCalls ?? [];
        if (calls.length === 0) {
          out.push({ role: 'assistant', content: m.content });
          return;
        }
        out.push({
          role: 'assistant',
          content: m.content === '' ? null : m.content,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          })),
        });
        return;
      }
      case 'tool':
        out.push({ role: 'tool', content: m.content, tool_call_id: m.toolCallId || callIds[i] || '' });
        return;
      default:
        return assertNever(m.role);
    }
  });
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Anthropic messages

export interface AnthropicTextBlock {
  readonly type: 'text';
  readonly text: string;
}
export interface AnthropicToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  /** Left out when the result text is empty (Anthropic rejects empty text). */
  readonly content?: string;
  readonly is_error?: true;
}
export type AnthropicContentBlock = AnthropicTextBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;

export interface AnthropicMessage {
  readonly role: 'user' | 'assistant';
  readonly content: AnthropicContentBlock[];
}

export interface AnthropicRendering {
  /** The options' system prompt and every system message of the history, joined by blank lines. */
  readonly system?: string;
  /** Alternating roles, starting with user; empty only when the history has no user/assistant/tool content. */
  readonly messages: AnthropicMessage[];
  /** True when the history began with an assistant message and a minimal user message was put before it. */
  readonly insertedLeadingUser: boolean;
  /**
   * Tool calls whose `arguments` were not a JSON object. Their `input` is `{ raw_arguments: <the string> }`
   * so nothing is lost; empty arguments become `{}` and are not counted here.
   */
  readonly unparsableToolArguments: number;
}

/** The text of the user message put first when a history starts with the assistant. */
export const ANTHROPIC_LEADING_USER_TEXT = '[Conversation continues]';

function toolInput(args: string): { input: Record<string, unknown>; parsed: boolean } {
  if (args.trim() === '') return { input: {}, parsed: true };
  try {
    const value: unknown = JSON.parse(args);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return { input: value as Record<string, unknown>, parsed: true };
    }
  } catch {
    // falls through to the raw wrapper
  }
  return { input: { raw_arguments: args }, parsed: false };
}

const hasText = (s: string): boolean => s.trim() !== '';

export function renderAnthropic(messages: readonly ChatMessage[], opts: RenderOptions = {}): AnthropicRendering {
  const callIds = resolveToolResultCallIds(messages);
  const systemParts: string[] = opts.system && hasText(opts.system) ? [opts.system] : [];
  const out: { role: 'user' | 'assistant'; content: AnthropicContentBlock[] }[] = [];
  let unparsable = 0;

  const append = (role: 'user' | 'assistant', blocks: AnthropicContentBlock[]): void => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: [...blocks] });
  };

  messages.forEach((m, i) => {
    switch (m.role) {
      case 'system':
        if (hasText(m.content)) systemParts.push(m.content);
        return;
      case 'user':
        append('user', hasText(m.content) ? [{ type: 'text', text: m.content }] : []);
        return;
      case 'assistant': {
        const blocks: AnthropicContentBlock[] = hasText(m.content) ? [{ type: 'text', text: m.content }] : [];
        for (const call of m.toolCalls ?? []) {
          const { input, parsed } = toolInput(call.arguments);
          if (!parsed) unparsable++;
          blocks.push({ type: 'tool_use', id: call.id, name: call.name, input });
        }
        append('assistant', blocks);
        return;
      }
      case 'tool':
        append('user', [
          {
            type: 'tool_result',
            tool_use_id: m.toolCallId || callIds[i] || '',
            ...(hasText(m.content) ? { content: m.content } : {}),
            ...(m.isError ? { is_error: true as const } : {}),
          },
        ]);
        return;
      default:
        return assertNever(m.role);
    }
  });

  // Anthropic wants tool_result blocks first in a user message; text merged in after them stays after.
  for (const msg of out) {
    if (msg.role === 'user') {
      msg.content = [
        ...msg.content.filter((b) => b.type === 'tool_result'),
        ...msg.content.filter((b) => b.type !== 'tool_result'),
      ];
    }
  }

  const insertedLeadingUser = out.length > 0 && out[0].role === 'assistant';
  if (insertedLeadingUser)
    out.unshift({ role: 'user', content: [{ type: 'text', text: ANTHROPIC_LEADING_USER_TEXT }] });

  return {
    ...(systemParts.length > 0 ? { system: systemParts.join('\n\n') } : {}),
    messages: out,
    insertedLeadingUser,
    unparsableToolArguments: unparsable,
  };
}

// ---------------------------------------------------------------------------------------------------
// Generic: the transcript format of shared/data/README.md

export interface GenericMessage {
  readonly role: Role;
  readonly content: string;
  readonly toolCalls?: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
  readonly toolCallId?: string;
  readonly toolName?: string;
  /** Only present (true) on failed tool results; an addition to the README format that readers may ignore. */
  readonly isError?: true;
}

export function renderGeneric(messages: readonly ChatMessage[], opts: RenderOptions = {}): GenericMessage[] {
  const out: GenericMessage[] = opts.system ? [{ role: 'system', content: opts.system }] : [];
  for (const m of messages) {
    out.push({
      role: m.role,
      content: m.content,
      ...(m.toolCalls && m.toolCalls.length > 0
        ? { toolCalls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) }
        : {}),
      ...(m.toolCallId !== undefined ? { toolCallId: m.toolCallId } : {}),
      ...(m.toolName !== undefined ? { toolName: m.toolName } : {}),
      ...(m.isError ? { isError: true as const } : {}),
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------

export type RenderFormat = 'openai' | 'anthropic' | 'generic';

export function renderHistory(
  messages: readonly ChatMessage[],
  format: 'openai',
  opts?: RenderOptions,
): OpenAIChatMessage[];
export function renderHistory(
  messages: readonly ChatMessage[],
  format: 'anthropic',
  opts?: RenderOptions,
): AnthropicRendering;
export function renderHistory(
  messages: readonly ChatMessage[],
  format: 'generic',
  opts?: RenderOptions,
): GenericMessage[];
export function renderHistory(
  messages: readonly ChatMessage[],
  format: RenderFormat,
  opts?: RenderOptions,
): OpenAIChatMessage[] | AnthropicRendering | GenericMessage[];
export function renderHistory(
  messages: readonly ChatMessage[],
  format: RenderFormat,
  opts: RenderOptions = {},
): OpenAIChatMessage[] | AnthropicRendering | GenericMessage[] {
  switch (format) {
    case 'openai':
      return renderOpenAI(messages, opts);
    case 'anthropic':
      return renderAnthropic(messages, opts);
    case 'generic':
      return renderGeneric(messages, opts);
    default:
      return assertNever(format);
  }
}

function assertNever(value: never): never {
  throw new Error(`Unhandled value: ${String(value)}`);
}
