import { LIMITS } from '@ctxledger/contracts';
import { checkSummary } from './summary-checks';

const count = (text: string) => Math.ceil(text.length / 4);
const limits = { maxSummaryTokens: 100, tokensBefore: 1000, final: true };

describe('checkSummary', () => {
  it('accepts a summary within the limits and smaller than what it replaces', () => {
    expect(checkSummary('x'.repeat(400), limits, count)).toEqual({ ok: true, tokens: 100 });
  });

  it.each([
    ['empty', '   ', limits, false, /empty/],
    ['truncated', 'x'.repeat(40), limits, true, /cut off at the output limit/],
    ['over-max-tokens', 'x'.repeat(404), limits, false, /101 tokens, over maxSummaryTokens 100/],
    [
      'over-max-chars',
      'x'.repeat(LIMITS.maxSummaryChars + 1),
      { ...limits, maxSummaryTokens: 1e9, tokensBefore: 1e9 },
      false,
      /contract's limit/,
    ],
    [
      'not-smaller',
      'x'.repeat(400),
      { ...limits, tokensBefore: 100 },
      false,
      /not smaller than what it replaces \(100 tokens\)/,
    ],
  ])('rejects %s', (code, text, l, truncated, reason) => {
    const check = checkSummary(text, l, count, truncated);
    expect(check).toMatchObject({ ok: false, code });
    expect(check.ok === false && check.reason).toMatch(reason);
  });

  it('applies the not-smaller rule only to the final summary of a split', () => {
    expect(checkSummary('x'.repeat(400), { ...limits, tokensBefore: 50, final: false }, count).ok).toBe(true);
  });
});
