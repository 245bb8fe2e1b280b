import { turnStarts, type ChatMessage } from '@ctxledger/context-engine';
import { renderMessage } from './summary-prompt';

export interface TranscriptParts {
  /** Rendered messages, one array per part, in order; every part fits the budget. */
  readonly parts: readonly (readonly string[])[];
  /** Tokens of each part. */
  readonly partTokens: readonly number[];
  /** Messages that were cut (head and tail kept) because one alone is over the budget. */
  readonly cutMessages: number;
}

/**
 * Splits a span that does not fit the summarizer model's window into parts that do, at turn boundaries (a
 * turn starts at a user message). Whole turns are packed greedily; a turn over the budget is split between
 * messages; a message over the budget alone keeps its head and tail.
 */
export function splitTranscript(
  messages: readonly ChatMessage[],
  budgetTokens: number,
  countText: (text: string) => number,
): TranscriptParts {
  if (budgetTokens < 1) throw new Error(`budget must be positive (got ${budgetTokens})`);
  let cutMessages = 0;
  const rendered = messages.map((m, i) => {
    const text = renderMessage(m, i + 1);
    const tokens = countText(text);
    if (tokens <= budgetTokens) return { text, tokens };
    cutMessages++;
    return fitText(text, budgetTokens, countText);
  });

  const starts = turnStarts(messages);
  const bounds = [0, ...starts.filter((s) => s > 0), messages.length];
  const parts: string[][] = [];
  const partTokens: number[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  const flush = () => {
    if (current.length === 0) return;
    parts.push(current);
    partTokens.push(currentTokens);
    current = [];
    currentTokens = 0;
  };
  const add = (r: { text: string; tokens: number }) => {
    if (currentTokens + r.tokens > budgetTokens) flush();
    current.push(r.text);
    currentTokens += r.tokens;
  };

  for (let t = 0; t + 1 < bounds.length; t++) {
    const turn = rendered.slice(bounds[t], bounds[t + 1]);
    if (turn.length === 0) continue;
    const turnTokens = turn.reduce((s, r) => s + r.tokens, 0);
    if (turnTokens <= budgetTokens) {
      if (currentTokens + turnTokens > budgetTokens) flush();
      for (const r of turn) add(r);
    } else {
      // A turn over the budget on its own: split it between messages.
      flush();
      for (const r of turn) add(r);
    }
  }
  flush();
  return { parts, partTokens, cutMessages };
}

/** Keeps the head and tail of a rendered message (its tags intact) so that it fits `budget` tokens. */
function fitText(text: string, budget: number, countText: (t: string) => number): { text: string; tokens: number } {
  const firstBreak = text.indexOf('\n');
  const lastBreak = text.lastIndexOf('\n');
  const open = text.slice(0, firstBreak + 1);
  const close = text.slice(lastBreak);
  const inner = text.slice(firstBreak + 1, lastBreak);
  let keep = inner.length;
  let out = text;
  let tokens = countText(text);
  for (let i = 0; i < 8 && tokens > budget; i++) {
    keep = Math.max(0, Math.floor(keep * (budget / tokens) * 0.9));
    const half = Math.floor(keep / 2);
    out = `${open}${inner.slice(0, half)}\n[… ${inner.length - 2 * half} characters left out …]\n${inner.slice(inner.length - half)}${close}`;
    tokens = countText(out);
  }
  return { text: out, tokens };
}
