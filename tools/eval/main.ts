/**
 * `eval`: the future-use retention probe (tools/eval/retention.ts says what it measures).
 *
 *   npm run -s eval -- --input sessions.jsonl [--budget-ratio R] [--cuts 0.4,0.5,0.6] [--one-turn] [--provider P]
 *                      [--out report.json]
 *
 * Prints a table per session and the totals; writes the JSON report to --out (default: stdout when --out is
 * not given, the table then goes to stderr). Exit code 1 when a line was bad, 2 on a usage error.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import Table from 'cli-table3';
import { Command, InvalidArgumentError } from 'commander';
import { nonNegativeInt, parseOrExitCode, positiveInt, ratioUpTo } from '../cli';
import { evaluateWithModelDigests, type ModelDigestReport } from './model-digests';
import { FACT_KINDS, evaluateText, type RetentionReport } from './retention';

const pct = (x: number | null): string => (x === null ? '-' : `${(100 * x).toFixed(1)}%`);
const shortId = (id: string, max = 44): string =>
  id.length <= max ? id : `${id.slice(0, 18)}…${id.slice(-(max - 19))}`;

export function retentionTable(report: RetentionReport): string {
  const table = new Table({
    head: ['session', 'msgs', 'cut', 'facts', 'kept', 'retention', 'chars kept', 'tokens before → after'],
    style: { head: [], border: [], compact: true },
    colAligns: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  });
  for (const s of report.sessions) {
    table.push([
      shortId(s.id),
      s.messages,
      s.cut,
      s.facts,
      s.retained,
      pct(s.retention),
      pct(s.charsKept),
      `${s.tokensBefore} → ${s.tokensAfter}`,
    ]);
  }
  const t = report.totals;
  table.push([
    `total (${t.scored} scored of ${t.sessions})`,
    '',
    '',
    t.facts,
    t.retained,
    pct(t.retention),
    pct(t.charsKept),
    '',
  ]);
  const kinds = FACT_KINDS.filter((k) => t.byKind[k])
    .map((k) => `${k} ${t.byKind[k]!.retained}/${t.byKind[k]!.facts}`)
    .join(', ');
  return [
    table.toString(),
    `retention ${pct(t.retention)} of ${t.facts} reused facts (mean per session ${pct(t.meanRetention)}); chars kept ${pct(t.charsKept)} (largest session ${pct(t.maxCharsKept)})`,
    `by kind (kept/facts): ${kinds}`,
    `failures of the first half's calls still stated: ${t.failuresKept}/${t.failures}${
      t.failures ? ` (${pct(t.failuresKept / t.failures)})` : ''
    }`,
    `background launches still running at the cut and still named: ${t.launchesKept}/${t.launches}${
      t.launches ? ` (${pct(t.launchesKept / t.launches)})` : ''
    }`,
    `commits of the first half still named by their hash: ${t.commitsKept}/${t.commits}${
      t.commits ? ` (${pct(t.commitsKept / t.commits)})` : ''
    }`,
  ].join('\n');
}

async function main(argv: readonly string[]): Promise<number> {
  const program = new Command('eval')
    .description(
      'Future-use retention of compaction: the share of facts reused later that the compacted history keeps.',
    )
    .requiredOption('-i, --input <file.jsonl>', 'transcript file, one session per line')
    .option('--budget-ratio <ratio>', "history budget = ratio × the first half's own size", ratioUpTo(1), 0.5)
    .option('--provider <provider>', 'provider for every session (default: inferred per session)')
    .option('--model <model>', 'model for every session')
    .option(
      '--cuts <shares>',
      'where to cut, as shares of the messages (default 0.5; e.g. 0.4,0.5,0.6 averages over the compaction cycle)',
      (v: string) => {
        const xs = v.split(',').map(Number);
        if (xs.length === 0 || xs.some((x) => !(x > 0 && x < 1))) throw new InvalidArgumentError('shares in (0, 1)');
        return xs;
      },
    )
    .option('--one-turn', 'make each session one long user turn (later user messages dropped): the in-turn path', false)
    .option('--min-messages <n>', 'skip sessions with fewer messages', positiveInt('--min-messages'), 10)
    .option(
      '--summary-lag <n>',
      "messages the agent appends while a summary is written (the summarizer's latency; default 0: answered at once)",
      nonNegativeInt('--summary-lag'),
      0,
    )
    .option(
      '--digest-model <model.gguf>',
      "digest summaries on, answered by this local model (SUMMARIZER_PROVIDER=local's code path): one call per request, slow",
    )
    .option('--threads <n>', 'threads of the local model', positiveInt('--threads'), 1)
    .option(
      '--max-sessions <n>',
      'with --digest-model: evaluate at most this many sessions',
      positiveInt('--max-sessions'),
    )
    .option('-o, --out <report.json>', 'write the JSON report here (default: stdout)')
    .showHelpAfterError()
    .exitOverride();
  const exit = parseOrExitCode(program, argv);
  if (exit !== undefined) return exit;
  const o = program.opts<{
    input: string;
    budgetRatio: number;
    provider?: string;
    model?: string;
    minMessages: number;
    cuts?: number[];
    oneTurn: boolean;
    summaryLag: number;
    digestModel?: string;
    threads: number;
    maxSessions?: number;
    out?: string;
  }>();
  let text: string;
  try {
    text = readFileSync(o.input, 'utf8');
  } catch (error) {
    process.stderr.write(`eval: cannot read ${o.input}: ${(error as Error).message}\n`);
    return 2;
  }
  const started = performance.now();
  const options = {
    budgetRatio: o.budgetRatio,
    minMessages: o.minMessages,
    ...(o.cuts ? { cuts: o.cuts } : {}),
    ...(o.oneTurn ? { oneTurn: true } : {}),
    ...(o.summaryLag > 0 ? { summaryLag: o.summaryLag } : {}),
    ...(o.provider ? { provider: o.provider } : {}),
    ...(o.model ? { model: o.model } : {}),
  };
  const report: RetentionReport = o.digestModel
    ? await evaluateWithModelDigests(text, options, {
        modelPath: o.digestModel,
        threads: o.threads,
        contextSize: 4096,
        timeoutMs: 180_000,
        ...(o.maxSessions !== undefined ? { maxSessions: o.maxSessions } : {}),
        log: (line) => process.stderr.write(`${line}\n`),
      })
    : evaluateText(text, options);
  const seconds = (performance.now() - started) / 1000;
  const json = `${JSON.stringify(report, null, 2)}\n`;
  if (o.out) writeFileSync(o.out, json);
  else process.stdout.write(json);
  const print = (s: string) => (o.out ? process.stdout : process.stderr).write(`${s}\n`);
  print(retentionTable(report));
  if ('model' in report) {
    const m = (report as ModelDigestReport).model;
    const asked = report.sessions.reduce((a, x) => a + (x.digestSummaries?.requested ?? 0), 0);
    print(
      `digest summaries: ${asked} asked, ${m.calls} model calls (${m.completed} completed, ${m.failed} failed, ` +
        `${m.seconds.toFixed(0)} s), ${m.superseded} superseded a note or marker`,
    );
  }
  print(
    `${report.sessions.length} sessions evaluated at budget ratio ${o.budgetRatio} in ${seconds.toFixed(2)} s` +
      (report.skipped.length ? `; ${report.skipped.length} skipped (short or bad lines)` : '') +
      (o.out ? `, report written to ${o.out}` : ''),
  );
  return report.skipped.some((s) => s.id.startsWith('line ')) ? 1 : 0;
}

void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
