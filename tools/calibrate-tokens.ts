/**
 * Calibrates the engine's token estimate on ../shared/data/sessions.jsonl and prints its error per provider.
 *
 *   npx tsx tools/calibrate-tokens.ts [path/to/sessions.jsonl]          # error of the current profiles + checks
 *   npx tsx tools/calibrate-tokens.ts --fit [path/to/sessions.jsonl]    # refit the rates (prints them)
 *
 * - Anthropic (pi coding agent, Claude Code): `meta.promptTokens` gives, for assistant messages, the input
 *   tokens the provider billed for the request that produced them. The difference between two consecutive
 *   entries is the real token count of the messages in between (a "delta"); deltas that go down (a compaction
 *   happened) are skipped. Chunks = consecutive deltas summed up to ≥ 2 000 real tokens (single deltas are noisy).
 * - OpenAI (SWE-agent, or any session whose `meta.model` is a GPT / o-series model): each message's text (content,
 *   tool-call names and arguments) against the exact js-tiktoken count (cl100k_base for GPT-4, o200k_base for
 *   GPT-4o); chunks of ≥ 500 real tokens.
 *
 * Prints per provider: chunks, mean absolute % error (MAPE), bias (Σ estimate / Σ real − 1; > 0 = over-estimate),
 * the share of under-estimated chunks, chars/token; per session: Σ estimate / Σ real − 1 over all its deltas or
 * texts, and for Anthropic sessions without compactions the whole-session figure (last − first promptTokens
 * against the messages in between, the deltas that went down included); the worst session; the targets
 * (aggregate within ±5 % and not below 0, no session beyond ±15 %); the bias by the delta's main content; and
 * two over-fitting checks on the Anthropic fit (scale + framing refitted without the session, or on one half of
 * each session, then scored on the rest).
 *
 * `--fit` fits the base segment rates to the exact cl100k_base count over the repo's node_modules text files
 * (Markdown, JS/TS, .d.ts, JSON, minified JS, source maps, package-lock.json, TypeScript's diagnostics in 10
 * languages) and the session texts, reports the same fit without the session texts scored on them, then fits the
 * Anthropic scale and framing to the deltas.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  BASE_SEGMENT_TOKENS,
  counterFor,
  createTiktokenTokenizer,
  createTokenCounter,
  estimateTextTokens,
  openAiEncodingFor,
  SEGMENT_KIND_COUNT,
  SEGMENT_KINDS,
  scanSegments,
  type ChatMessage,
  type SegmentRates,
  type TokenCounter,
  type TokenProfile,
} from '../libs/context-engine/src';

interface Session {
  id: string;
  source: string;
  meta?: {
    promptTokens?: [number, number][];
    model?: string | null;
    startModel?: string;
    compactions?: unknown[];
  };
  messages: ChatMessage[];
}

interface Sample {
  est: number;
  real: number;
  chars: number;
}

/** The messages between two consecutive promptTokens entries and their real token count. */
interface Delta {
  session: Session;
  from: number;
  to: number;
  real: number;
}

const args = process.argv.slice(2);
const fitMode = args.includes('--fit');
const file = resolve(args.find((a) => !a.startsWith('--')) ?? `${__dirname}/../../shared/data/sessions.jsonl`);
const sessions: Session[] = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Session);

const charsOf = (m: ChatMessage) =>
  m.content.length + (m.toolCalls ?? []).reduce((s, c) => s + c.name.length + c.arguments.length, 0);
const pct = (x: number, digits = 1) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(digits)}%`;
/** A session id short enough for a table and still telling the SWE-agent configurations apart. */
const shortId = (id: string) => {
  const parts = id
    .replace(/^swe-agent:(tests\/test_data\/)?trajectories\/(demonstrations\/)?/, 'swe-agent:')
    .replace(/__t-[\d.]+__p-[\d.]+__c-[\d.]+__install-\d+/, '')
    .split('/');
  const last = parts[parts.length - 1]!;
  const s =
    parts.length > 1 && parts[parts.length - 2]!.includes(last) ? parts.slice(0, -1).join('/') : parts.join('/');
  return s.length > 58 ? `${s.slice(0, 20)}…${s.slice(-37)}` : s;
};
const isOpenAiModel = (s: Session) => /^(openai\/)?(gpt|o\d|chatgpt)/i.test(s.meta?.model ?? s.meta?.startModel ?? '');
/** Sessions with billed prompt tokens from a Claude model (pi, Claude Code, any other agent that records them). */
const isAnthropic = (s: Session) =>
  !s.source.startsWith('swe-agent') && !isOpenAiModel(s) && (s.meta?.promptTokens?.length ?? 0) > 0;
/** Sessions of an OpenAI model: compared text by text with the exact tokenizer. */
const isOpenAi = (s: Session) => s.source.startsWith('swe-agent') || isOpenAiModel(s);

// ---------------------------------------------------------------------------------------------------------------
// Real counts

function deltasOf(s: Session): Delta[] {
  const pts = s.meta?.promptTokens ?? [];
  const out: Delta[] = [];
  for (let k = 1; k < pts.length; k++) {
    const [from, t1] = pts[k - 1]!;
    const [to, t2] = pts[k]!;
    if (t2 - t1 > 0 && to > from) out.push({ session: s, from, to, real: t2 - t1 });
  }
  return out;
}

const deltaSample = (d: Delta, counter: TokenCounter): Sample => {
  let est = 0;
  let chars = 0;
  for (let i = d.from; i < d.to; i++) {
    est += counter.message(d.session.messages[i]!);
    chars += charsOf(d.session.messages[i]!);
  }
  return { est, real: d.real, chars };
};

/** Consecutive samples summed until each holds at least `min` real tokens (a session's tail is kept too). */
function chunk(samples: Sample[], min: number, keepTail = false): Sample[] {
  const out: Sample[] = [];
  let acc: Sample = { est: 0, real: 0, chars: 0 };
  for (const x of samples) {
    acc = { est: acc.est + x.est, real: acc.real + x.real, chars: acc.chars + x.chars };
    if (acc.real >= min) {
      out.push(acc);
      acc = { est: 0, real: 0, chars: 0 };
    }
  }
  if (keepTail && acc.real > 0) out.push(acc);
  return out;
}

const sum = (xs: Sample[]): Sample =>
  xs.reduce((a, x) => ({ est: a.est + x.est, real: a.real + x.real, chars: a.chars + x.chars }), {
    est: 0,
    real: 0,
    chars: 0,
  });

/** Per-message texts of an OpenAI session against the exact count (content tokens on both sides). */
function openAiSamples(s: Session, profile: TokenProfile): Sample[] {
  const exact = createTiktokenTokenizer(openAiEncodingFor(s.meta?.model ?? 'gpt-4'));
  return s.messages.map((m) => {
    let real = exact.count(m.content);
    let est = estimateTextTokens(m.content, profile);
    for (const c of m.toolCalls ?? []) {
      real += exact.count(c.name) + exact.count(c.arguments);
      est += estimateTextTokens(c.name, profile) + estimateTextTokens(c.arguments, profile);
    }
    return { est, real, chars: charsOf(m) };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Reports

function summarize(label: string, samples: Sample[]): void {
  if (samples.length === 0) return console.log(`${label}: no samples`);
  const t = sum(samples);
  t.est = Math.round(t.est);
  const mape = samples.reduce((s, x) => s + Math.abs(x.est - x.real) / x.real, 0) / samples.length;
  const under = samples.filter((x) => x.est < x.real).length;
  console.log(
    `${label.padEnd(34)} chunks ${String(samples.length).padStart(4)}  real ${String(t.real).padStart(8)}  est ${String(t.est).padStart(8)}  ` +
      `MAPE ${(mape * 100).toFixed(1).padStart(5)}%  bias ${pct(t.est / t.real - 1).padStart(7)}  ` +
      `under-estimated ${((under / samples.length) * 100).toFixed(0).padStart(3)}%  chars/token real ${(t.chars / t.real).toFixed(2)}`,
  );
}

interface SessionError {
  id: string;
  error: number;
  real: number;
  whole?: number;
}

function printSessions(label: string, rows: SessionError[]): SessionError {
  console.log(`\n${label}: per session, Σ estimate / Σ real − 1`);
  for (const r of rows) {
    const whole = r.whole === undefined ? '' : `   whole session ${pct(r.whole).padStart(7)}`;
    console.log(
      `  ${shortId(r.id).padEnd(60)} real ${String(r.real).padStart(7)}  ${pct(r.error).padStart(7)}${whole}`,
    );
  }
  const worst = rows.reduce((w, r) =>
    Math.max(Math.abs(r.error), Math.abs(r.whole ?? 0)) > Math.max(Math.abs(w.error), Math.abs(w.whole ?? 0)) ? r : w,
  );
  return worst;
}

/** Whole-session comparison for sessions without compactions: last − first promptTokens vs the messages between. */
function wholeSession(s: Session, counter: TokenCounter): number | undefined {
  const pts = s.meta?.promptTokens ?? [];
  if (pts.length < 2 || (s.meta?.compactions?.length ?? 0) > 0) return undefined;
  const [from, t1] = pts[0]!;
  const [to, t2] = pts[pts.length - 1]!;
  let est = 0;
  for (let i = from; i < to; i++) est += counter.message(s.messages[i]!);
  return est / (t2 - t1) - 1;
}

function target(label: string, aggregate: number, worst: SessionError): void {
  const worstErr = Math.abs(worst.whole ?? 0) > Math.abs(worst.error) ? worst.whole! : worst.error;
  const ok = aggregate >= 0 && aggregate <= 0.05 && Math.abs(worstErr) <= 0.15;
  console.log(
    `${ok ? 'PASS' : 'FAIL'} ${label}: aggregate bias ${pct(aggregate)} (target 0..+5 %), ` +
      `worst session ${pct(worstErr)} (target ±15 %): ${shortId(worst.id)}`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Fitting: base (uncalibrated) tokens of a text = Σ segment counts × BASE_SEGMENT_TOKENS.

const scratch = new Float64Array(SEGMENT_KIND_COUNT);
function countsOf(text: string, decode = false): number[] {
  scratch.fill(0);
  scanSegments(text, scratch, decode);
  return Array.from(scratch);
}
const baseTokens = (text: string, decode = false, rates: SegmentRates = BASE_SEGMENT_TOKENS) =>
  countsOf(text, decode).reduce((s, v, k) => s + v * rates[SEGMENT_KINDS[k]!], 0);

/** Weighted least squares (normal equations; a tiny ridge keeps unused columns at 0). */
function leastSquares(x: number[][], y: number[], w: number[]): number[] {
  const p = x[0]!.length;
  const a = Array.from({ length: p }, () => new Array<number>(p + 1).fill(0));
  x.forEach((row, i) => {
    for (let r = 0; r < p; r++) {
      a[r]![p]! += w[i]! * row[r]! * y[i]!;
      for (let c = 0; c < p; c++) a[r]![c]! += w[i]! * row[r]! * row[c]!;
    }
  });
  for (let r = 0; r < p; r++) a[r]![r]! += 1e-6;
  for (let c = 0; c < p; c++) {
    let piv = c;
    for (let r = c + 1; r < p; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[piv]![c]!)) piv = r;
    [a[c], a[piv]] = [a[piv]!, a[c]!];
    for (let r = 0; r < p; r++) {
      if (r === c) continue;
      const f = a[r]![c]! / a[c]![c]!;
      for (let k = c; k <= p; k++) a[r]![k]! -= f * a[c]![k]!;
    }
  }
  return a.map((row, r) => row[p]! / row[r]!);
}

/** A delta as the Anthropic fit sees it: [messages, tool calls, base tokens of its texts]. */
function deltaFeatures(d: Delta): number[] {
  let calls = 0;
  let base = 0;
  for (let i = d.from; i < d.to; i++) {
    const m = d.session.messages[i]!;
    base += baseTokens(m.content) + (m.role === 'tool' && m.toolName ? baseTokens(m.toolName) : 0);
    for (const c of m.toolCalls ?? []) {
      calls++;
      base += baseTokens(c.name) + baseTokens(c.arguments, true);
    }
  }
  return [d.to - d.from, calls, base];
}

/** Scale, per-message and per-call-pair framing, weighted by 1 / real (relative error). */
const fitAnthropic = (ds: Delta[], features: Map<Delta, number[]>) =>
  leastSquares(
    ds.map((d) => features.get(d)!),
    ds.map((d) => d.real),
    ds.map((d) => 1 / d.real),
  );

/** The Anthropic profile with a refitted scale and framing (the call/result split and the margin kept). */
function refitted(base: TokenProfile, [perMessage, perPair, scale]: number[]): TokenCounter {
  const current = base.perToolCall + base.perToolResult;
  const rates = Object.fromEntries(SEGMENT_KINDS.map((k) => [k, BASE_SEGMENT_TOKENS[k] * scale!])) as SegmentRates;
  return createTokenCounter({
    ...base,
    segmentTokens: rates,
    perMessage: perMessage!,
    perToolCall: (perPair! * base.perToolCall) / current,
    perToolResult: (perPair! * base.perToolResult) / current,
  });
}

// ---------------------------------------------------------------------------------------------------------------

const anthropicSessions = sessions.filter(isAnthropic);
const openAiSessions = sessions.filter(isOpenAi);
const deltas = anthropicSessions.flatMap(deltasOf);

if (fitMode) fit();
else report();

function report(): void {
  const anthropic = counterFor({ provider: 'anthropic' });
  const openai = counterFor({ provider: 'openai' });
  console.log(`token estimate vs real counts on ${file}`);

  // Anthropic
  const bySource = new Map<string, Sample[]>();
  const anthropicRows: SessionError[] = [];
  for (const s of anthropicSessions) {
    const samples = deltasOf(s).map((d) => deltaSample(d, anthropic));
    const key = `anthropic (${s.source.split('/')[0]})`;
    bySource.set(key, [...(bySource.get(key) ?? []), ...chunk(samples, 2000)]);
    const t = sum(samples);
    anthropicRows.push({ id: s.id, error: t.est / t.real - 1, real: t.real, whole: wholeSession(s, anthropic) });
  }
  // OpenAI
  const openAiChunks: Sample[] = [];
  const openAiRows: SessionError[] = [];
  for (const s of openAiSessions) {
    const samples = openAiSamples(s, openai.profile);
    openAiChunks.push(...chunk(samples, 500));
    const t = sum(samples);
    openAiRows.push({ id: s.id, error: t.est / t.real - 1, real: t.real });
  }

  console.log('\nchunks (Anthropic: deltas summed to ≥ 2 000 real tokens; OpenAI: texts summed to ≥ 500 exact tokens)');
  summarize('openai (vs exact tiktoken)', openAiChunks);
  for (const [k, v] of bySource) summarize(k, v);
  const allAnthropic = [...bySource.values()].flat();
  summarize('anthropic (all)', allAnthropic);
  summarize(
    'anthropic, naive chars/4',
    allAnthropic.map((x) => ({ ...x, est: Math.ceil(x.chars / 4) })),
  );

  const worstOpenAi = printSessions('openai', openAiRows);
  const worstAnthropic = printSessions('anthropic', anthropicRows);
  console.log('');
  target('openai   ', sum(openAiChunks).est / sum(openAiChunks).real - 1, worstOpenAi);
  target('anthropic', sum(allAnthropic).est / sum(allAnthropic).real - 1, worstAnthropic);

  byContent(anthropic);
  overfittingChecks(anthropic.profile);
}

/** Bias of the Anthropic estimate by the delta's main content (≥ 70 % of its base tokens), else "mixed". */
function byContent(counter: TokenCounter): void {
  const groups = new Map<string, Sample[]>();
  for (const d of deltas) {
    const parts = new Map<string, number>();
    let total = 0;
    const add = (k: string, t: number) => {
      parts.set(k, (parts.get(k) ?? 0) + t);
      total += t;
    };
    for (let i = d.from; i < d.to; i++) {
      const m = d.session.messages[i]!;
      add(m.role === 'tool' ? `tool result (${m.toolName})` : `${m.role} text`, baseTokens(m.content));
      for (const c of m.toolCalls ?? []) add(`call arguments (${c.name})`, baseTokens(c.arguments, true));
    }
    const [main, t] = [...parts].sort((a, b) => b[1] - a[1])[0]!;
    const key = t >= 0.7 * total ? main : 'mixed';
    groups.set(key, [...(groups.get(key) ?? []), deltaSample(d, counter)]);
  }
  console.log('\nanthropic: bias by the main content of a delta');
  for (const [k, v] of [...groups].sort((a, b) => sum(b[1]).real - sum(a[1]).real)) {
    const t = sum(v);
    if (t.real < 2000) continue;
    console.log(
      `  ${k.padEnd(28)} deltas ${String(v.length).padStart(4)}  real ${String(t.real).padStart(7)}  ` +
        `bias ${pct(t.est / t.real - 1).padStart(7)}  chars/token real ${(t.chars / t.real).toFixed(2)}`,
    );
  }
}

/** Leave-one-session-out and split-half refits of the Anthropic scale and framing. */
function overfittingChecks(profile: TokenProfile): void {
  const features = new Map(deltas.map((d) => [d, deltaFeatures(d)]));
  const all = fitAnthropic(deltas, features);
  const show = (c: number[]) =>
    `scale ${c[2]!.toFixed(3)}, per message ${c[0]!.toFixed(1)}, per call + result ${c[1]!.toFixed(1)}`;
  console.log(`\nanthropic fit on all deltas (before the ${profile.safetyMargin} margin): ${show(all)}`);

  console.log('leave one session out (refit without it, score it):');
  for (const s of anthropicSessions) {
    const train = deltas.filter((d) => d.session !== s);
    const c = fitAnthropic(train, features);
    const counter = refitted(profile, c);
    const t = sum(deltasOf(s).map((d) => deltaSample(d, counter)));
    console.log(`  ${shortId(s.id).padEnd(60)} ${pct(t.est / t.real - 1).padStart(7)}   (${show(c)})`);
  }

  console.log('split half (fit on one half of each session, score the other half in chunks ≥ 2 000):');
  const firstHalf = new Set<Delta>();
  for (const s of anthropicSessions) {
    const ds = deltas.filter((d) => d.session === s);
    ds.slice(0, Math.ceil(ds.length / 2)).forEach((d) => firstHalf.add(d));
  }
  for (const [label, inFit] of [
    ['fit first halves, score second', true],
    ['fit second halves, score first', false],
  ] as const) {
    const c = fitAnthropic(
      deltas.filter((d) => firstHalf.has(d) === inFit),
      features,
    );
    const counter = refitted(profile, c);
    const test = deltas.filter((d) => firstHalf.has(d) !== inFit).map((d) => deltaSample(d, counter));
    summarize(`  ${label}`, chunk(test, 2000));
  }
  // Each pi session alone (Sonnet 4.5, Opus 4.5): one scale serves both models.
  for (const s of anthropicSessions.filter((x) => x.source.startsWith('pi-coding-agent'))) {
    const ds = deltas.filter((d) => d.session === s);
    console.log(`  fit on ${shortId(s.id)} (${ds.length} deltas) alone: ${show(fitAnthropic(ds, features))}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// --fit

interface Text {
  kind: string;
  text: string;
}

/** Deterministic sample of text files under node_modules: up to `per` files of each kind, ≤ 3 chunks of 3 000 chars. */
function corpus(root: string, per = 150): Text[] {
  const files = new Map<string, string[]>();
  const kindOf = (name: string): string | undefined => {
    if (name.endsWith('.min.js')) return 'minified js';
    if (name.endsWith('.d.ts')) return 'd.ts';
    if (name.endsWith('.js.map')) return 'source map';
    const ext = /\.(md|js|ts|json)$/.exec(name)?.[1];
    if (ext === 'md') return /changelog|history/i.test(name) ? 'changelog' : 'markdown';
    return ext;
  };
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      let st;
      try {
        st = statSync(path);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (depth < 8 && name !== '.bin' && name !== '.cache') walk(path, depth + 1);
      } else if (st.size > 3000 && st.size < 300_000) {
        const kind = kindOf(name);
        if (kind && !/diagnosticMessages|iconv-lite|ajv-i18n/.test(path))
          files.set(kind, [...(files.get(kind) ?? []), path]);
      }
    }
  };
  walk(root, 0);
  const out: Text[] = [];
  for (const [kind, list] of files) {
    // Minified code and source maps are rare in agent sessions: a few, so they do not pull the common kinds.
    const n = kind === 'minified js' || kind === 'source map' ? per / 5 : per;
    const step = Math.max(1, Math.floor(list.length / n));
    for (let i = 0; i < list.length && i / step < n; i += step) {
      const t = readFileSync(list[i]!, 'utf8');
      for (let k = 0; k < 3 && k * 9000 < t.length; k++) out.push({ kind, text: t.slice(k * 9000, k * 9000 + 3000) });
    }
  }
  for (const lang of ['zh-cn', 'ja', 'ko', 'ru', 'de', 'fr', 'es', 'pl', 'tr', 'cs']) {
    const path = join(root, 'typescript/lib', lang, 'diagnosticMessages.generated.json');
    const values = Object.values(JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>).join('\n');
    for (let k = 0; k < 12; k++)
      out.push({ kind: `messages ${lang}`, text: values.slice(k * 20_000, k * 20_000 + 3000) });
  }
  // Lockfile text: integrity hashes (base64), URLs, versions.
  const lock = readFileSync(resolve(root, '../package-lock.json'), 'utf8');
  for (let k = 0; k < 40 && k * 20_000 < lock.length; k++)
    out.push({ kind: 'package-lock', text: lock.slice(k * 20_000, k * 20_000 + 3000) });
  return out.filter((t) => t.text.length >= 200);
}

function fit(): void {
  const cl100k = createTiktokenTokenizer('cl100k_base');
  const texts: Text[] = corpus(resolve(__dirname, '../node_modules'));
  const sessionTexts: Text[] = [];
  for (const s of sessions) {
    for (const m of s.messages) {
      for (const t of [m.content, ...(m.toolCalls ?? []).map((c) => c.arguments)]) {
        if (t.length >= 200) sessionTexts.push({ kind: `session ${s.source.split('/')[0]}`, text: t });
      }
    }
  }
  const rows = [...texts, ...sessionTexts].map((t) => ({ ...t, x: countsOf(t.text), y: cl100k.count(t.text) }));
  // Opaque runs are few in the corpus and the fit reads them cheap; their rate is fixed from cl100k's own
  // chars/token on random strings (hex 1.78, lowercase alphanumeric 1.61, base64 1.47): 0.6 tokens per char.
  const OPAQUE = SEGMENT_KINDS.indexOf('opaqueChar');
  const fixed = 0.6;
  const fitRows = (rs: typeof rows) => {
    const c = leastSquares(
      rs.map((r) => r.x.map((v, k) => (k === OPAQUE ? 0 : v))),
      rs.map((r) => r.y - fixed * r.x[OPAQUE]!),
      rs.map((r) => 1 / r.y),
    );
    c[OPAQUE] = fixed;
    return c;
  };
  const score = (c: number[], label: string) => {
    console.log(label);
    for (const kind of [...new Set(rows.map((r) => r.kind))]) {
      const g = rows.filter((r) => r.kind === kind);
      const p = (r: (typeof rows)[number]) => r.x.reduce((s, v, k) => s + v * c[k]!, 0);
      const est = g.reduce((s, r) => s + p(r), 0);
      const real = g.reduce((s, r) => s + r.y, 0);
      const mape = g.reduce((s, r) => s + Math.abs(p(r) / r.y - 1), 0) / g.length;
      const chars = g.reduce((s, r) => s + r.text.length, 0);
      console.log(
        `  ${kind.padEnd(26)} texts ${String(g.length).padStart(4)}  chars/token ${(chars / real).toFixed(2)}  ` +
          `bias ${pct(est / real - 1).padStart(7)}  MAPE ${(mape * 100).toFixed(1).padStart(5)}%`,
      );
    }
  };
  const held = fitRows(rows.filter((r) => !r.kind.startsWith('session')));
  score(held, '\nbase fitted on node_modules only, scored on everything (session texts held out):');
  const c = fitRows(rows);
  score(c, '\nbase fitted on node_modules + session texts:');
  console.log('\nBASE_SEGMENT_TOKENS (cl100k_base):');
  console.log(`{ ${SEGMENT_KINDS.map((k, i) => `${k}: ${c[i]!.toFixed(3)}`).join(', ')} }`);

  const features = new Map(deltas.map((d) => [d, deltaFeatures(d)]));
  const a = fitAnthropic(deltas, features);
  console.log(
    `\nanthropic on the current BASE_SEGMENT_TOKENS: scale ${a[2]!.toFixed(3)}, per message ${a[0]!.toFixed(2)}, ` +
      `per tool call + result ${a[1]!.toFixed(1)}`,
  );
}
