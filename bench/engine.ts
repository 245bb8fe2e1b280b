/**
 * Engine benchmark (a script, never a timed test):
 *
 *   npm run bench:engine [-- --reps 5 --data ../shared/data/sessions.jsonl --sizes 100,1000,10000]
 *
 * 1. Per-append cost as a session grows. Synthetic agent sessions (user asks, assistant tool calls — some
 *    parallel —, tool results of mixed size with re-reads and the odd huge output, text replies) of 10,000
 *    messages are replayed with the same step as `replay` (evolve MessageAppended → decide Compact auto →
 *    evolve; summary requests answered offline), timing every append. Reported for N = 100, 1,000, 10,000:
 *    the mean (and median, p99) µs per append over the appends from N/2 to N, (a) under a budget so large
 *    nothing compacts and (b) under a 24k window where compactions keep happening (from ~60 messages on);
 *    for (b) also the mean cost of an append that compacted and the number of active blocks at N. Median over
 *    the repetitions (one session per repetition, different seeds). Flat: the 10,000 / 100 ratio stays near 1.
 * 2. Replay of ../shared/data/sessions.jsonl (parse + validate + replay + report) as a ratio to merely
 *    JSON.parse-ing each line of the same file, interleaved in the same run, median of the repetitions.
 * 3. The worst case of the focused truncation: a 2M-token window session holding three ~0.9 MB outputs, each
 *    followed by a write of 2,000 lines (quoting the output, or naming identifiers it lacks), then reads until the
 *    threshold; the wall ms of the append whose compaction truncates all three, median of the repetitions.
 *
 * Prints a table and writes bench/results/engine.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import Table from 'cli-table3';
import { Command, InvalidArgumentError } from 'commander';
import { ENGINE_VERSION, type ChatMessage, type SessionConfig } from '@ctxledger/context-engine';
import { appendAndCompact, newTally, replayText, startSession, type ReplayOptions } from '../tools/replay/replay';
import { hugeOutputSession, syntheticSession } from './synthetic';

// ---------------------------------------------------------------------------------------------------
// Measurements

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const now = (): number => Number(process.hrtime.bigint()) / 1000; // µs, wall clock
/** µs of CPU this process used (user + system): robust to other processes competing for the cores. */
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

interface AppendRun {
  /** µs of each append (index = messages before it). */
  readonly times: Float64Array;
  /** Compactions completed during each append. */
  readonly compactions: Uint16Array;
  /** Active blocks (the overlay's size) after each append. */
  readonly activeBlocks: Uint32Array;
  /** CPU µs used so far, taken before the append at each marked index (and at the end). */
  readonly cpuAt: ReadonlyMap<number, number>;
}

function timeAppends(
  messages: readonly ChatMessage[],
  config: SessionConfig,
  seed: number,
  marks: ReadonlySet<number> = new Set(),
): AppendRun {
  const session = { id: `bench-${seed}`, messages };
  let state = startSession(session, {
    provider: config.provider,
    contextWindow: config.contextWindow,
    maxOutputTokens: config.maxOutputTokens,
  });
  const times = new Float64Array(messages.length);
  const compactions = new Uint16Array(messages.length);
  const activeBlocks = new Uint32Array(messages.length);
  const tally = newTally();
  const cpuAt = new Map<number, number>();
  for (let i = 0; i < messages.length; i++) {
    if (marks.has(i)) cpuAt.set(i, cpuNow());
    const before = tally.compactions;
    const t0 = now();
    state = appendAndCompact(state, messages[i]!, tally);
    times[i] = now() - t0;
    compactions[i] = tally.compactions - before;
    activeBlocks[i] = state.active.length;
  }
  cpuAt.set(messages.length, cpuNow());
  return { times, compactions, activeBlocks, cpuAt };
}

interface BandResult {
  readonly size: number;
  /** Median over repetitions of the mean µs per append in the band (the appends from N/2 to N by default), wall clock. */
  readonly meanUs: number;
  /** The same in CPU time of this process (the headline: other processes on the machine do not inflate it). */
  readonly meanCpuUs: number;
  /** Median over repetitions of the median µs per append in the band. */
  readonly medianUs: number;
  /** Median over repetitions of the p99 µs per append in the band. */
  readonly p99Us: number;
  readonly compactionsInBand: number;
  /** Median over repetitions of the mean µs of the appends in the band that compacted (null: none did). */
  readonly compactingAppendUs: number | null;
  /** Same, appends that did not compact. */
  readonly plainAppendUs: number;
  /** Active blocks when the session reaches `size` (median over repetitions). */
  readonly activeBlocks: number;
}

const bandStart = (size: number, width: number): number =>
  width > 0 ? Math.max(0, size - width) : Math.floor(size / 2);

function bands(runs: readonly AppendRun[], sizes: readonly number[], width: number): BandResult[] {
  return sizes.map((size) => {
    const from = bandStart(size, width);
    const means: number[] = [];
    const cpuMeans = runs.map((r) => (r.cpuAt.get(size)! - r.cpuAt.get(from)!) / (size - from));
    const medians: number[] = [];
    const p99s: number[] = [];
    const comps: number[] = [];
    const compacting: number[] = [];
    const plain: number[] = [];
    for (const r of runs) {
      let ct = 0;
      let cn = 0;
      let pt = 0;
      let pn = 0;
      for (let i = from; i < size; i++) {
        if (r.compactions[i]! > 0) {
          ct += r.times[i]!;
          cn++;
        } else {
          pt += r.times[i]!;
          pn++;
        }
      }
      if (cn > 0) compacting.push(ct / cn);
      plain.push(pn > 0 ? pt / pn : 0);
      const slice = Array.from(r.times.subarray(from, size));
      means.push(slice.reduce((a, b) => a + b, 0) / slice.length);
      medians.push(median(slice));
      p99s.push([...slice].sort((a, b) => a - b)[Math.min(slice.length - 1, Math.floor(slice.length * 0.99))]!);
      comps.push(Array.from(r.compactions.subarray(from, size)).reduce((a, b) => a + b, 0));
    }
    return {
      size,
      meanUs: median(means),
      meanCpuUs: median(cpuMeans),
      medianUs: median(medians),
      p99Us: median(p99s),
      compactionsInBand: median(comps),
      compactingAppendUs: compacting.length > 0 ? median(compacting) : null,
      plainAppendUs: median(plain),
      activeBlocks: median(runs.map((r) => r.activeBlocks[size - 1]!)),
    };
  });
}

function main(argv: readonly string[]): void {
  const int = (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
    return n;
  };
  const program = new Command('bench:engine')
    .option('--reps <n>', 'repetitions (sessions per mode; replay/parse rounds)', int, 7)
    .option('--data <file>', 'transcripts to replay', resolve(__dirname, '../../shared/data/sessions.jsonl'))
    .option(
      '--sizes <list>',
      'session sizes to report',
      (v) => v.split(',').map((x) => int(x.trim())),
      [100, 1000, 10_000],
    )
    .option(
      '--band <n>',
      'appends per size band ending at each size (default 0: the second half, from N/2 to N)',
      (v) => (v === '0' ? 0 : int(v)),
      0,
    )
    .option('--out <file>', 'results file', resolve(__dirname, 'results/engine.json'))
    .parse(argv as string[], { from: 'user' });
  const o = program.opts<{ reps: number; data: string; sizes: number[]; band: number; out: string }>();
  const maxSize = Math.max(...o.sizes);

  const modes: { name: string; config: SessionConfig }[] = [
    {
      name: 'no compaction (1e9-token window)',
      config: { provider: 'anthropic', contextWindow: 1_000_000_000, maxOutputTokens: 0 },
    },
    // A 24k window (20k history budget) compacts from the first ~60 messages on, in every size band.
    {
      name: 'compacting (24k window, 4k output reserve)',
      config: { provider: 'anthropic', contextWindow: 24_000, maxOutputTokens: 4_000 },
    },
  ];
  const sessions = Array.from({ length: o.reps }, (_, r) => syntheticSession(maxSize, 1000 + r));
  const chars = sessions[0]!.reduce(
    (a, m) => a + m.content.length + (m.toolCalls ?? []).reduce((b, c) => b + c.arguments.length, 0),
    0,
  );
  process.stderr.write(
    `synthetic sessions: ${o.reps} × ${maxSize} messages (${(chars / 1e6).toFixed(1)} M chars each)\n`,
  );

  // Warm-up: one untimed pass per mode so that the JIT has compiled the hot paths before the first band.
  for (const m of modes) timeAppends(syntheticSession(Math.min(maxSize, 3000), 7), m.config, 7);

  const marks = new Set(o.sizes.flatMap((size) => [bandStart(size, o.band), size]));
  const appendResults = modes.map((m) => {
    const runs = sessions.map((s, r) => {
      process.stderr.write(`  ${m.name}: repetition ${r + 1}/${o.reps}\n`);
      return timeAppends(s, m.config, 1000 + r, marks);
    });
    const b = bands(runs, o.sizes, o.band);
    const total = runs.map((r) => r.times.reduce((a, x) => a + x, 0) / r.times.length);
    return {
      mode: m.name,
      config: m.config,
      bands: b,
      ratioLastToFirstCpu: b[b.length - 1]!.meanCpuUs / b[0]!.meanCpuUs,
      ratioLastToFirst: b[b.length - 1]!.meanUs / b[0]!.meanUs,
      ratioLastToFirstMedian: b[b.length - 1]!.medianUs / b[0]!.medianUs,
      ratioLastToFirstCompacting:
        b[0]!.compactingAppendUs && b[b.length - 1]!.compactingAppendUs
          ? b[b.length - 1]!.compactingAppendUs! / b[0]!.compactingAppendUs!
          : null,
      meanUsOverWholeSession: median(total),
      compactionsPerSession: median(runs.map((r) => r.compactions.reduce((a, x) => a + x, 0))),
    };
  });

  // Replay of the data file vs JSON.parse of the same file.
  const text = readFileSync(o.data, 'utf8');
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const replayModes: { name: string; options: ReplayOptions }[] = [
    { name: 'replay, registry windows', options: {} },
    { name: 'replay, --budget-ratio 0.5', options: { budgetRatio: 0.5 } },
    { name: 'replay, --budget-ratio 0.25', options: { budgetRatio: 0.25 } },
  ];
  /** [wall ms, CPU ms] of one call. */
  const measure = (f: () => void): [number, number] => {
    const w = now();
    const c = cpuNow();
    f();
    return [(now() - w) / 1000, (cpuNow() - c) / 1000];
  };
  const parse: [number, number][] = [];
  const replays: [number, number][][] = replayModes.map(() => []);
  let sink = 0;
  const parseAll = () => {
    for (const l of lines) sink += (JSON.parse(l) as { messages: unknown[] }).messages.length;
  };
  parseAll();
  replayModes.forEach((m) => replayText(text, m.options)); // warm-up
  const rounds = Math.max(o.reps, 5);
  for (let r = 0; r < rounds; r++) {
    process.stderr.write(`  replay vs JSON.parse: round ${r + 1}/${rounds}\n`);
    parse.push(measure(parseAll));
    replayModes.forEach((m, i) => replays[i]!.push(measure(() => (sink += replayText(text, m.options).totals.blocks))));
  }
  const parseWall = median(parse.map((x) => x[0]));
  const parseCpu = median(parse.map((x) => x[1]));
  const replayResults = replayModes.map((m, i) => {
    const wall = median(replays[i]!.map((x) => x[0]));
    const cpu = median(replays[i]!.map((x) => x[1]));
    return {
      mode: m.name,
      medianWallMs: wall,
      medianCpuMs: cpu,
      ratioToJsonParseCpu: cpu / parseCpu,
      ratioToJsonParseWall: wall / parseWall,
      runs: replays[i]!,
    };
  });

  // The worst case of the focused truncation: the slowest append (the one that compacts) of each session.
  const hugeConfig: SessionConfig = { provider: 'anthropic', contextWindow: 2_000_000, maxOutputTokens: 32_000 };
  const hugeResults = [true, false].map((quoting) => {
    const messages = hugeOutputSession(3, quoting, 40);
    const runs = Array.from({ length: o.reps }, (_, r) => {
      process.stderr.write(`  huge outputs, ${quoting ? 'quoting' : 'naming'} writes: repetition ${r + 1}/${o.reps}\n`);
      const run = timeAppends(messages, hugeConfig, 1);
      const slowest = run.times.reduce((a, x, i) => (x > run.times[a]! ? i : a), 0);
      return { slowestMs: run.times[slowest]! / 1000, compacted: run.compactions[slowest]! > 0 };
    });
    return {
      writes: quoting ? 'quote 2,000 lines of the output' : 'name 6,000 identifiers the output lacks',
      medianSlowestAppendMs: median(runs.map((r) => r.slowestMs)),
      slowestAppendCompacted: runs.every((r) => r.compacted),
      chars: messages.reduce((a, m) => a + m.content.length + (m.toolCalls?.[0]?.arguments.length ?? 0), 0),
    };
  });

  const t1 = new Table({
    head: [
      'per-append cost',
      ...o.sizes.map((s) => `at ${s.toLocaleString('en')} msgs`),
      `ratio ${maxSize.toLocaleString('en')} / ${o.sizes[0]}`,
    ],
    style: { head: [], border: [] },
  });
  for (const a of appendResults) {
    t1.push([
      [
        a.mode,
        '  mean CPU µs per append',
        '  wall µs per append: mean (median, p99)',
        '  wall µs: non-compacting / compacting append [compactions]',
        '  active blocks at N',
      ].join('\n'),
      ...a.bands.map((b) =>
        [
          '',
          b.meanCpuUs.toFixed(1),
          `${b.meanUs.toFixed(1)} (${b.medianUs.toFixed(1)}, ${b.p99Us.toFixed(0)})`,
          `${b.plainAppendUs.toFixed(1)} / ${b.compactingAppendUs === null ? '-' : b.compactingAppendUs.toFixed(0)} [${b.compactionsInBand}]`,
          String(b.activeBlocks),
        ].join('\n'),
      ),
      [
        '',
        `${a.ratioLastToFirstCpu.toFixed(2)}× (mean CPU)`,
        `${a.ratioLastToFirst.toFixed(2)}× (mean wall), ${a.ratioLastToFirstMedian.toFixed(2)}× (median)`,
        a.ratioLastToFirstCompacting === null ? '' : `${a.ratioLastToFirstCompacting.toFixed(2)}× (compacting appends)`,
      ].join('\n'),
    ]);
  }
  const t2 = new Table({
    head: [
      `${lines.length} sessions, ${(text.length / 1e6).toFixed(2)} MB`,
      'median CPU ms',
      'ratio to JSON.parse (CPU)',
      'median wall ms',
      'ratio (wall)',
    ],
    style: { head: [], border: [] },
  });
  t2.push(['JSON.parse of every line', parseCpu.toFixed(1), '1.00×', parseWall.toFixed(1), '1.00×']);
  for (const r of replayResults) {
    t2.push([
      r.mode,
      r.medianCpuMs.toFixed(1),
      `${r.ratioToJsonParseCpu.toFixed(1)}×`,
      r.medianWallMs.toFixed(1),
      `${r.ratioToJsonParseWall.toFixed(1)}×`,
    ]);
  }
  const t3 = new Table({
    head: [
      'three ~0.9 MB outputs, each followed by a write that…',
      'session chars',
      'the compacting append: median wall ms',
    ],
    style: { head: [], border: [] },
  });
  for (const h of hugeResults) {
    t3.push([
      h.writes,
      h.chars.toLocaleString('en'),
      `${h.medianSlowestAppendMs.toFixed(0)}${h.slowestAppendCompacted ? '' : ' (did not compact!)'}`,
    ]);
  }
  console.log(t1.toString());
  console.log(t2.toString());
  console.log(t3.toString());
  console.log(
    `(load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(
        ' ',
      )} on ${cpus().length} cores; ${o.reps} repetitions, band = ${o.band > 0 ? `the ${o.band} appends ending at each size` : 'the appends from N/2 to N for each size N'}; node ${process.version}; ${cpus()[0]?.model ?? 'cpu?'}; sink ${sink % 10})`,
  );

  const results = {
    command: `npm run bench:engine -- --reps ${o.reps}`,
    engineVersion: ENGINE_VERSION,
    node: process.version,
    cpu: cpus()[0]?.model,
    measuredAt: new Date().toISOString(),
    loadAverage: loadavg(),
    cores: cpus().length,
    perAppend: { sessionMessages: maxSize, repetitions: o.reps, bandWidth: o.band, modes: appendResults },
    replayVsJsonParse: {
      file: o.data,
      bytes: Buffer.byteLength(text),
      sessions: lines.length,
      jsonParseMedianCpuMs: parseCpu,
      jsonParseMedianWallMs: parseWall,
      parseRuns: parse,
      modes: replayResults,
    },
    hugeOutputs: { config: hugeConfig, repetitions: o.reps, modes: hugeResults },
  };
  mkdirSync(dirname(o.out), { recursive: true });
  writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`results written to ${o.out}`);
}

main(process.argv.slice(2));
