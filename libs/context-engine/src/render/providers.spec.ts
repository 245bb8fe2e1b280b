import fc from 'fast-check';
import { sharedSessions } from '../../../../test/support/shared-data';
import type { ChatMessage, ToolCall } from '../model/message';
import { findToolPairViolations } from '../repair';
import {
  ANTHROPIC_LEADING_USER_TEXT,
  type AnthropicRendering,
  renderAnthropic,
  renderGeneric,
  renderHistory,
  renderOpenAI,
} from './index';

const history: ChatMessage[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Read both files.' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'c1', name: 'read', arguments: '{"path":"a.ts"}' },
      { id: 'c2', name: 'read', arguments: '{"path":"b.ts"}' },
    ],
  },
  { role: 'tool', content: 'B', toolCallId: 'c2', toolName: 'read' },
  { role: 'tool', content: 'A', toolCallId: 'c1', toolName: 'read', isError: true },
  { role: 'user', content: 'And?' },
  { role: 'assistant', content: 'Both read.' },
];

describe('renderOpenAI', () => {
  it('renders chat-completions messages, content null for tool-call-only assistants', () => {
    expect(renderOpenAI(history, { system: 'Be brief.' })).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Read both files.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } },
          { id: 'c2', type: 'function', function: { name: 'read', arguments: '{"path":"b.ts"}' } },
        ],
      },
      { role: 'tool', content: 'B', tool_call_id: 'c2' },
      { role: 'tool', content: 'A', tool_call_id: 'c1' },
      { role: 'user', content: 'And?' },
      { role: 'assistant', content: 'Both read.' },
    ]);
  });

  it('gives id-less legacy results the id of their positional call', () => {
    const legacy: ChatMessage[] = [
      {
        role: 'assistant',
        content: 'looking',
        toolCalls: [
          { id: 'x', name: 'bash', arguments: '{}' },
          { id: 'y', name: 'bash', arguments: '{}' },
        ],
      },
      { role: 'tool', content: 'one' },
      { role: 'tool', content: 'two' },
    ];
    expect(renderOpenAI(legacy).slice(1)).toEqual([
      { role: 'tool', content: 'one', tool_call_id: 'x' },
      { role: 'tool', content: 'two', tool_call_id: 'y' },
    ]);
    expect(renderOpenAI(legacy)[0]).toMatchObject({ content: 'looking' });
  });
});

describe('renderAnthropic', () => {
  it('moves system out, uses tool_use/tool_result blocks, and merges the results with the next user text', () => {
    expect(renderAnthropic(history, { system: 'Be brief.' })).toEqual({
      system: 'Be brief.\n\nYou are a coding agent.',
      insertedLeadingUser: false,
      unparsableToolArguments: 0,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Read both files.' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a.ts' } },
            { type: 'tool_use', id: 'c2', name: 'read', input: { path: 'b.ts' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'c2', content: 'B' },
            { type: 'tool_result', tool_use_id: 'c1', content: 'A', is_error: true },
            { type: 'text', text: 'And?' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Both read.' }] },
      ],
    } satisfies AnthropicRendering);
  });

  it('starts with a minimal user message when the history starts with the assistant, and says so', () => {
    const r = renderAnthropic([
      { role: 'assistant', content: 'Summary of earlier work.' },
      { role: 'user', content: 'continue' },
    ]);
    expect(r.insertedLeadingUser).toBe(true);
    expect(r.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: ANTHROPIC_LEADING_USER_TEXT }] });
    expect(r.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('merges same-role neighbours and never emits empty text blocks', () => {
    const r = renderAnthropic([
      { role: 'user', content: 'one' },
      { role: 'user', content: '   ' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: 'a' },
      { role: 'assistant', content: 'b', toolCalls: [{ id: 't', name: 'bash', arguments: '{"command":"ls"}' }] },
      { role: 'tool', content: '', toolCallId: 't', toolName: 'bash' },
    ]);
    expect(r.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
          { type: 'tool_use', id: 't', name: 'bash', input: { command: 'ls' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't' }] },
    ]);
  });

  it('wraps arguments that are not a JSON object as { raw_arguments } and counts them; empty arguments are {}', () => {
    const r = renderAnthropic([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: '1', name: 'bash', arguments: 'ls -la' },
          { id: '2', name: 'bash', arguments: '[1,2]' },
          { id: '3', name: 'bash', arguments: '' },
        ],
      },
    ]);
    expect(r.unparsableToolArguments).toBe(2);
    expect(r.messages[1].content.map((b) => (b.type === 'tool_use' ? b.input : null))).toEqual([
      { raw_arguments: 'ls -la' },
      { raw_arguments: '[1,2]' },
      {},
    ]);
  });
});

describe('renderGeneric and renderHistory', () => {
  it('renders the data README format, and the dispatcher picks the renderer', () => {
    expect(renderGeneric(history.slice(2, 5))).toEqual([
      { role: 'assistant', content: '', toolCalls: history[2].toolCalls },
      { role: 'tool', content: 'B', toolCallId: 'c2', toolName: 'read' },
      { role: 'tool', content: 'A', toolCallId: 'c1', toolName: 'read', isError: true },
    ]);
    expect(renderHistory(history, 'generic')).toEqual(renderGeneric(history));
    expect(renderHistory(history, 'openai', { system: 's' })).toEqual(renderOpenAI(history, { system: 's' }));
    expect(renderHistory(history, 'anthropic')).toEqual(renderAnthropic(history));
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties over generated valid histories (with system messages anywhere, empty texts, assistant-first
// starts, runs of same-role messages, parallel batches in any order, id-less results).

let nextId = 0;
const textArb = fc.constantFrom('', ' ', 'hello', 'ok, next', 'line\nline');
const batchArb = fc
  .record({
    width: fc.integer({ min: 1, max: 4 }),
    reverse: fc.boolean(),
    legacy: fc.boolean(),
    text: textArb,
    args: fc.constantFrom('{"path":"a"}', '{}', 'not json', ''),
  })
  .map(({ width, reverse, legacy, text, args }) => {
    const ids = Array.from({ length: width }, () => `c${nextId++}`);
    const toolCalls: ToolCall[] = ids.map((id) => ({ id, name: 'read', arguments: args }));
    const order = legacy || !reverse ? ids : [...ids].reverse();
    return [
      { role: 'assistant', content: text, toolCalls } as ChatMessage,
      ...order.map((id): ChatMessage => ({
        role: 'tool',
        content: `out ${id}`,
        ...(legacy ? {} : { toolCallId: id, toolName: 'read' }),
      })),
    ];
  });
const plainArb = fc.oneof(
  textArb.map((content): ChatMessage[] => [{ role: 'user', content }]),
  textArb.map((content): ChatMessage[] => [{ role: 'assistant', content }]),
  textArb.map((content): ChatMessage[] => [{ role: 'system', content }]),
);
const validHistoryArb = fc.array(fc.oneof(plainArb, batchArb), { maxLength: 12 }).map((parts) => parts.flat());

describe('render properties', () => {
  it('Anthropic: alternating roles starting with user, no empty text, each tool_use answered once in the next user message', () => {
    fc.assert(
      fc.property(validHistoryArb, (input) => {
        expect(findToolPairViolations(input)).toEqual([]);
        const { messages } = renderAnthropic(input);
        messages.forEach((m, i) => {
          expect(m.content.length).toBeGreaterThan(0);
          if (i === 0) expect(m.role).toBe('user');
          else expect(m.role).not.toBe(messages[i - 1].role);
          for (const b of m.content) if (b.type === 'text') expect(b.text.trim()).not.toBe('');
          const resultIds = m.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []));
          if (m.role === 'user') {
            // tool_result blocks come first
            const firstText = m.content.findIndex((b) => b.type !== 'tool_result');
            if (firstText >= 0) expect(m.content.slice(firstText).every((b) => b.type !== 'tool_result')).toBe(true);
          }
          if (m.role === 'assistant') {
            const useIds = m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
            const next = messages[i + 1];
            const answered = next ? next.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])) : [];
            for (const id of useIds) expect(answered.filter((x) => x === id)).toHaveLength(1);
          }
          if (m.role === 'user' && resultIds.length > 0) {
            const prev = messages[i - 1];
            const used = prev.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
            expect([...resultIds].sort()).toEqual([...used].sort());
          }
        });
        // Every non-blank text reaches the output, in order.
        const texts = input
          .filter((m) => m.role !== 'system' && m.role !== 'tool' && m.content.trim() !== '')
          .map((m) => m.content);
        const rendered = messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
        expect(rendered.filter((t) => t !== ANTHROPIC_LEADING_USER_TEXT || texts.includes(t))).toEqual(texts);
      }),
      { numRuns: 200 },
    );
  });

  it('OpenAI: one message per input message, every tool message answers a call of the assistant before its run', () => {
    fc.assert(
      fc.property(validHistoryArb, (input) => {
        const out = renderOpenAI(input);
        expect(out).toHaveLength(input.length);
        let open: string[] = [];
        for (const m of out) {
          if (m.role === 'assistant') open = (m.tool_calls ?? []).map((c) => c.id);
          else if (m.role === 'tool') {
            expect(open).toContain(m.tool_call_id);
            open = open.filter((id) => id !== m.tool_call_id);
          } else {
            expect(open).toEqual([]);
          }
          if (m.role === 'assistant' && m.tool_calls) expect(m.tool_calls.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('generic: round-trips through JSON to the same messages', () => {
    fc.assert(
      fc.property(validHistoryArb, (input) => {
        expect(JSON.parse(JSON.stringify(renderGeneric(input)))).toEqual(
          input.map((m) => ({ ...m, ...(m.toolCalls && m.toolCalls.length === 0 ? { toolCalls: undefined } : {}) })),
        );
      }),
      { numRuns: 200 },
    );
  });
});

describe('real transcripts (shared/data)', () => {
  const sessions = sharedSessions();

  it('every session renders to valid Anthropic turns (pending calls aside) with all arguments parsed', () => {
    for (const s of sessions) {
      const r = renderAnthropic(s.messages);
      expect(r.unparsableToolArguments).toBe(0);
      expect(r.messages[0].role).toBe('user');
      r.messages.forEach((m, i) => i > 0 && expect(m.role).not.toBe(r.messages[i - 1].role));
    }
  });
});
