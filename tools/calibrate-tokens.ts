/**
 * Calibrates the engine's token estimate on ../shared/data/sessions.jsonl and prints its error per provider.
 *
 *   npx tsx tools/calibrate-tokens.ts [path/to/sessions.jsonl]
 *
 * - Anthropic (pi coding agent, Claude Code): `meta.promptTokens` gives, for assistant messages, the input
 *   tokens the provider billed for the request that produced them. The difference between two consecutive
 *   entries is the real token count of the messages in between; we compare it with the estimate of the same
 *   messages, over chunks of at least 2 000 real tokens (single deltas are too noisy). Deltas that go down
 *   (a compaction happened) are skipped.
 * - OpenAI (SWE-agent, GPT-4 / GPT-4o): each message's text is compared with the exact js-tiktoken count
 *   (cl100k_base for GPT-4, o200k_base for GPT-4o), content + tool-call names and arguments.
 *
 * Prints per provider: chunks, mean absolute % error, bias (Σ estimate / Σ real − 1; > 0 = over-estimate),
 * and the chars/token actually observed.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  counterFor,
  createTiktokenTokenizer,
  estimateTextTokens,
  openAiEncodingFor,
  tokenProfileFor,
  type ChatMessage,
  type TokenCounter,
} from '../libs/context-engine/src';

interface Session {
  id: string;
  source: string;
  meta?: { promptTokens?: [number, number][]; model?: string | null; compactions?: { atMessageIndex: number }[] };
  messages: ChatMessage[];
}

interface Sample {
  est: number;
  real: number;
  chars: number;
}

const charsOf = (m: ChatMessage) =>
  m.content.length + (m.toolCalls ?? []).reduce((s, c) => s + c.name.length + c.arguments.length, 0);

function summarize(label: string, samples: Sample[]): void {
  if (samples.length === 0) return console.log(`${label}: no samples`);
  const est = samples.reduce((s, x) => s + x.est, 0);
  const real = samples.reduce((s, x) => s + x.real, 0);
  const chars = samples.reduce((s, x) => s + x.chars, 0);
  const mape = samples.reduce((s, x) => s + Math.abs(x.est - x.real) / x.real, 0) / samples.length;
  const under = samples.filter((x) => x.est < x.real).length;
  console.log(
    `${label.padEnd(34)} samples ${String(samples.length).padStart(4)}  real ${String(real).padStart(8)}  est ${String(est).padStart(8)}  ` +
      `MAPE ${(mape * 100).toFixed(1).padStart(5)}%  bias ${((est / real - 1) * 100).toFixed(1).padStart(6)}%  ` +
      `under-estimated ${((under / samples.length) * 100).toFixed(0)}%  chars/token real ${(chars / real).toFixed(2)}`,
  );
}

function anthropicSamples(s: Session, counter: TokenCounter): Sample[] {
  const pts = s.meta?.promptTokens ?? [];
  const out: Sample[] = [];
  let acc: Sample = { est: 0, real: 0, chars: 0 };
  for (let k = 1; k < pts.length; k++) {
    const [i1, t1] = pts[k - 1]!;
    const [i2, t2] = pts[k]!;
    const real = t2 - t1;
    if (real <= 0 || i2 <= i1) {
      acc = { est: 0, real: 0, chars: 0 };
      continue;
    }
    let est = 0;
    let chars = 0;
    for (let i = i1; i < i2; i++) {
      est += counter.message(s.messages[i]!);
      chars += charsOf(s.messages[i]!);
    }
    acc = { est: acc.est + est, real: acc.real + real, chars: acc.chars + chars };
    if (acc.real >= 2000) {
      out.push(acc);
      acc = { est: 0, real: 0, chars: 0 };
    }
  }
  return out;
}

function openAiSamples(s: Session, counter: TokenCounter): Sample[] {
  const model = s.meta?.model ?? 'gpt-4';
  const exact = createTiktokenTokenizer(openAiEncodingFor(model));
  const out: Sample[] = [];
  let acc: Sample = { est: 0, real: 0, chars: 0 };
  const p = counter.profile;
  for (const m of s.messages) {
    // Content tokens only on both sides (the framing constants are OpenAI's documented ones).
    let real = exact.count(m.content);
    let est = estimateTextTokens(m.content, p);
    for (const c of m.toolCalls ?? []) {
      real += exact.count(c.name) + exact.count(c.arguments);
      est += estimateTextTokens(c.name, p) + estimateTextTokens(c.arguments, p);
    }
    acc = { est: acc.est + est, real: acc.real + real, chars: acc.chars + charsOf(m) };
    if (acc.real >= 500) {
      out.push(acc);
      acc = { est: 0, real: 0, chars: 0 };
    }
  }
  return out;
}

const file = resolve(process.argv[2] ?? `${__dirname}/../../shared/data/sessions.jsonl`);
const sessions: Session[] = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Session);

const anthropic = counterFor({ provider: 'anthropic' });
const openai = counterFor({ provider: 'openai' });
const bySource = new Map<string, Sample[]>();
const add = (k: string, xs: Sample[]) => bySource.set(k, [...(bySource.get(k) ?? []), ...xs]);
for (const s of sessions) {
  if (s.source.startsWith('swe-agent')) add('openai (SWE-agent vs tiktoken)', openAiSamples(s, openai));
  else if (s.meta?.promptTokens?.length) add(`anthropic (${s.source.split('/')[0]})`, anthropicSamples(s, anthropic));
}
console.log(`token estimate vs real counts on ${file}`);
console.log(`profiles: anthropic ${JSON.stringify(tokenProfileFor('anthropic'))}`);
console.log(`          openai    ${JSON.stringify(tokenProfileFor('openai'))}`);
for (const [k, v] of bySource) summarize(k, v);
summarize(
  'anthropic (all)',
  [...bySource].filter(([k]) => k.startsWith('anthropic')).flatMap(([, v]) => v),
);
// For comparison: the naive chars/4 estimate on the same Anthropic chunks.
const naive = [...bySource]
  .filter(([k]) => k.startsWith('anthropic'))
  .flatMap(([, v]) => v)
  .map((x) => ({ ...x, est: Math.ceil(x.chars / 4) }));
summarize('anthropic, naive chars/4', naive);
