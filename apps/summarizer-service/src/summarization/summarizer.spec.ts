import { counterFor, type ChatMessage } from '@ctxledger/context-engine';
import { Summarizer } from './summarizer';

/** A small agent session: a request, a failing test run, the fix, a passing run. */
const MESSAGES: ChatMessage[] = [
  { role: 'user', content: 'The build fails on main. Please find out why and fix it; keep the public API unchanged.' },
  {
    role: 'assistant',
    content: 'Running the tests.',
    toolCalls: [{ id: 'c1', name: 'bash', arguments: '{"command":"npm test"}' }],
  },
  {
    role: 'tool',
    toolCallId: 'c1',
    content: 'FAIL src/parser/tokenize.spec.ts\n  TypeError: Cannot read properties of undefined (reading "length")',
  },
  {
    role: 'assistant',
    content: 'Guarding it.',
    toolCalls: [{ id: 'c2', name: 'edit', arguments: '{"file":"src/parser/tokenize.ts"}' }],
  },
  { role: 'tool', toolCallId: 'c2', content: 'src/parser/tokenize.ts: 1 line changed' },
  {
    role: 'assistant',
    content: 'Again.',
    toolCalls: [{ id: 'c3', name: 'bash', arguments: '{"command":"npm test"}' }],
  },
  { role: 'tool', toolCallId: 'c3', content: 'Tests: 58 passed, 58 total' },
];

describe('Summarizer.offline', () => {
  const summarizer = new Summarizer({
    settings: {
      defaultProvider: 'offline',
      fallback: 'none',
      providers: {},
      timeoutMs: 1000,
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
      outputHeadroomTokens: 0,
    },
    clients: {},
  } as unknown as ConstructorParameters<typeof Summarizer>[0]);

  it.each([48, 64, 160])('shrinks the deterministic summary within a limit of %i tokens', (maxSummaryTokens) => {
    const outcome = summarizer.offline({ requestId: 'r', messages: MESSAGES, maxSummaryTokens });
    expect(outcome.kind).toBe('completed');
    if (outcome.kind !== 'completed') return;
    expect(counterFor({}).text(outcome.summary)).toBeLessThanOrEqual(maxSummaryTokens);
    // The failing test file is what a short summary keeps besides the request.
    if (maxSummaryTokens >= 64) expect(outcome.summary).toContain('tokenize');
  });
});
