import { calls, result, text, toolCall, user } from '../testing/fixtures';
import {
  counterFor,
  createTiktokenTokenizer,
  estimateMessagesTokens,
  estimateTextTokens,
  estimateToolDefinitionsTokens,
  imageTokens,
  openAiEncodingFor,
  tokenProfileFor,
} from '.';

describe('token estimation', () => {
  const anthropic = counterFor({ provider: 'anthropic' });

  it('counts tool-call arguments (SCENARIOS #5)', () => {
    const big = calls('', toolCall('c1', 'write', { content: 'x'.repeat(39_000) }));
    expect(anthropic.message(big)).toBeGreaterThan(5000);
    const args20k = anthropic.message(calls('', toolCall('c1', 'write', { content: text(20_000) })));
    const args1k = anthropic.message(calls('', toolCall('c1', 'write', { content: text(1000) })));
    expect(args20k).toBeGreaterThan(5 * args1k);
    const one = anthropic.message(calls('', toolCall('c1', 'read', { path: '/a.ts' })));
    const five = anthropic.message(
      calls('', ...[1, 2, 3, 4, 5].map((i) => toolCall(`c${i}`, 'read', { path: '/a.ts' }))),
    );
    expect(five).toBeGreaterThan(4 * (one - 4));
  });

  it('is not the naive chars/4 on Claude: more tokens for the same text (DESIGN lesson)', () => {
    const s = text(10_000);
    expect(estimateTextTokens(s, tokenProfileFor('anthropic'))).toBeGreaterThan(Math.ceil(s.length / 4) * 1.15);
  });

  it('treats symbol-dense text as code (fewer chars per token than prose)', () => {
    const p = tokenProfileFor('openai');
    const prose = 'the quick brown fox jumps over the lazy dog and keeps running '.repeat(50);
    const code = 'if (a[i] !== b[j]) { x = f(y, z); } // {}[]();\n'.repeat(60);
    expect(estimateTextTokens(code, p) / code.length).toBeGreaterThan(estimateTextTokens(prose, p) / prose.length);
  });

  it('counts non-ASCII characters at about one token each', () => {
    expect(estimateTextTokens('漢字'.repeat(100), tokenProfileFor('anthropic'))).toBeGreaterThanOrEqual(200);
  });

  it('clamps images by size (seed 003: bytes/750, floor 85, cap 16 000)', () => {
    expect(imageTokens(1000)).toBe(85);
    expect(imageTokens(750 * 1000)).toBe(1000);
    expect(imageTokens(1e9)).toBe(16_000);
    const withImage = anthropic.message({ role: 'user', content: 'see', images: [{ bytes: 750 * 500 }] });
    expect(withImage - anthropic.message(user('see'))).toBe(500);
  });

  it('adds per-message, per-tool-result and per-conversation framing', () => {
    const msgs = [user('hi'), result('c1', 'ok', 'bash')];
    const sum = anthropic.message(msgs[0]!) + anthropic.message(msgs[1]!);
    expect(estimateMessagesTokens(msgs, anthropic)).toBe(sum + anthropic.perConversation);
    expect(estimateMessagesTokens([], anthropic)).toBe(0);
    expect(anthropic.message(user(''))).toBe(tokenProfileFor('anthropic').perMessage);
  });

  it('counts tool definitions (name, description, schema)', () => {
    const read = {
      name: 'read',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    };
    const one = estimateToolDefinitionsTokens([read], anthropic);
    expect(one).toBeGreaterThan(20);
    expect(estimateToolDefinitionsTokens([read, read, read], anthropic)).toBe(3 * one);
    expect(estimateToolDefinitionsTokens([], anthropic)).toBe(0);
  });

  it('has an exact tokenizer for OpenAI models', () => {
    expect(openAiEncodingFor('gpt-4o-2024-08-06')).toBe('o200k_base');
    expect(openAiEncodingFor('gpt-4')).toBe('cl100k_base');
    expect(openAiEncodingFor('o3-mini')).toBe('o200k_base');
    const tk = createTiktokenTokenizer('cl100k_base');
    expect(tk.count('hello world')).toBe(2);
    const exact = counterFor({ provider: 'openai', model: 'gpt-4', tokenizer: 'exact' });
    expect(exact.tokenizer?.name).toBe('cl100k_base');
    expect(exact.message(user('hello world'))).toBe(2 + 3);
    // 'exact' is only for OpenAI providers: elsewhere the calibrated estimate is used.
    expect(counterFor({ provider: 'anthropic', tokenizer: 'exact' }).tokenizer).toBeUndefined();
  });

  it('estimates OpenAI text within 25% of the exact count on mixed content', () => {
    const tk = createTiktokenTokenizer('cl100k_base');
    const sample = `${text(3000)}\nfunction f(a, b) { return a[b] + 1; }\n`.repeat(3);
    const est = estimateTextTokens(sample, tokenProfileFor('openai'));
    expect(Math.abs(est - tk.count(sample)) / tk.count(sample)).toBeLessThan(0.25);
  });
});
