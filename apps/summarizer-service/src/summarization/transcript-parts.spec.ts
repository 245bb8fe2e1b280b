import type { ChatMessage } from '@ctxledger/context-engine';
import { splitTranscript } from './transcript-parts';

const count = (text: string) => Math.ceil(text.length / 4);

function turns(n: number, toolChars = 400): ChatMessage[] {
  return Array.from({ length: n }, (_, t): ChatMessage[] => [
    { role: 'user', content: `request ${t}` },
    { role: 'assistant', content: '', toolCalls: [{ id: `c${t}`, name: 'bash', arguments: '{"command":"ls"}' }] },
    { role: 'tool', toolCallId: `c${t}`, content: 'x'.repeat(toolChars) },
    { role: 'assistant', content: `done ${t}` },
  ]).flat();
}

const indicesOf = (part: readonly string[]) => part.map((r) => Number(/index="(\d+)"/.exec(r)![1]));

describe('splitTranscript', () => {
  it('keeps everything in one part when it fits', () => {
    const { parts } = splitTranscript(turns(3), 10_000, count);
    expect(parts).toHaveLength(1);
    expect(indicesOf(parts[0])).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('packs whole turns: every part fits and starts at a user message; every message once, in order', () => {
    const messages = turns(20);
    const { parts, partTokens, cutMessages } = splitTranscript(messages, 400, count);
    expect(parts.length).toBeGreaterThan(3);
    expect(cutMessages).toBe(0);
    partTokens.forEach((t) => expect(t).toBeLessThanOrEqual(400));
    for (const part of parts) expect(part[0]).toMatch(/^<message index="\d+" role="user">/);
    expect(parts.flatMap(indicesOf)).toEqual(messages.map((_, i) => i + 1));
  });

  it('splits a turn over the budget between messages, and cuts a message over the budget alone (head and tail kept)', () => {
    const messages = turns(2, 8000);
    const { parts, partTokens, cutMessages } = splitTranscript(messages, 1000, count);
    expect(cutMessages).toBe(2);
    partTokens.forEach((t) => expect(t).toBeLessThanOrEqual(1000));
    expect(parts.flatMap(indicesOf)).toEqual(messages.map((_, i) => i + 1));
    const cut = parts.flat().find((r) => r.includes('characters left out'))!;
    expect(cut).toMatch(
      /^<message index="3" role="tool" call="c0">\nx+\n\[… \d+ characters left out …\]\nx+\n<\/message>$/,
    );
  });
});
