/**
 * `replay`: evaluate the compaction policy on your own transcripts.
 *
 *   npm run replay -- --input sessions.jsonl [--provider P --model M] [--context-window N]
 *                     [--max-output-tokens N] [--budget-ratio R] [--every-turn] [--out report.json]
 *
 * Each session (one per line, the format of ../shared/data/README.md) is appended message by message
 * through the engine's decider, summary requests answered by the offline deterministic summarizer. The
 * JSON report goes to --out (or to stdout when --out is not given); the progress bar goes to stderr and
 * the summary table to stdout (to stderr when the report itself is on stdout; use `npm run -s replay` then,
 * or npm prints its banner into the JSON). A second table gives the prompt-cache-aware input cost of the
 * model calls with and without compaction (./cost.ts), the cache-invalidating compactions and the model calls
 * between consecutive compactions (min / median; the TOTAL row: the minimum across sessions). Exit code 1 when a line
 * was bad or the engine failed on a session (the report is still written), 2 on a usage error.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { nonNegativeInt, parseOrExitCode, positiveInt, ratioUpTo } from '../cli';
import { SingleBar, Presets } from 'cli-progress';
import { countSessionLines, formatInputError } from './input';
import { replayText, type ReplayOptions } from './replay';
import { summaryTable } from './table';

const ratio = ratioUpTo(10);

interface CliOptions {
  input: string;
  provider?: string;
  model?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  budgetRatio?: number;
  everyTurn?: boolean;
  summaryLag: number;
  tokenizer?: 'estimate' | 'exact';
  out?: string;
  progress: boolean;
}

function main(argv: readonly string[]): number {
  const program = new Command('replay')
    .description(
      'Replay agent transcripts (JSONL, one session per line) through the context engine and report what it does.',
    )
    .requiredOption('-i, --input <file.jsonl>', 'transcript file, one session per line')
    .option(
      '--provider <provider>',
      'provider for every session (default: inferred from each session: pi / Claude Code → anthropic, SWE-agent gpt-4* → openai, else anthropic)',
    )
    .option(
      '--model <model>',
      'model for every session (default: the session meta model when the provider is inferred)',
    )
    .option(
      '--context-window <tokens>',
      'explicit context window (default: from provider/model)',
      positiveInt('--context-window'),
    )
    .option(
      '--max-output-tokens <tokens>',
      'output reserve (default: seed 002 rule, min(64k, 35% of the window))',
      nonNegativeInt('--max-output-tokens'),
    )
    .option(
      '--budget-ratio <ratio>',
      "history budget = ratio × each session's own estimated size (forces compaction)",
      ratio,
    )
    .option('--every-turn', 'also record the effective history at each user message', false)
    .option(
      '--summary-lag <n>',
      "messages the agent appends while a summary is written (the summarizer's latency; default 0: answered at once)",
      nonNegativeInt('--summary-lag'),
      0,
    )
    .addOption(new Option('--tokenizer <kind>', 'token counting').choices(['estimate', 'exact']).default('estimate'))
    .option('-o, --out <report.json>', 'write the JSON report here (default: stdout)')
    .option('--no-progress', 'no progress bar')
    .showHelpAfterError()
    .exitOverride();
  const exit = parseOrExitCode(program, argv);
  if (exit !== undefined) return exit;
  const o = program.opts<CliOptions>();
  if (o.budgetRatio !== undefined && o.contextWindow !== undefined) {
    process.stderr.write('replay: --budget-ratio and --context-window are exclusive (the ratio sets the window)\n');
    return 2;
  }

  let text: string;
  try {
    text = readFileSync(o.input, 'utf8');
  } catch (error) {
    process.stderr.write(`replay: cannot read ${o.input}: ${(error as Error).message}\n`);
    return 2;
  }
  const options: ReplayOptions = {
    ...(o.provider ? { provider: o.provider } : {}),
    ...(o.model ? { model: o.model } : {}),
    ...(o.contextWindow !== undefined ? { contextWindow: o.contextWindow } : {}),
    ...(o.maxOutputTokens !== undefined ? { maxOutputTokens: o.maxOutputTokens } : {}),
    ...(o.budgetRatio !== undefined ? { budgetRatio: o.budgetRatio } : {}),
    ...(o.everyTurn ? { everyTurn: true } : {}),
    ...(o.summaryLag > 0 ? { summaryLag: o.summaryLag } : {}),
    ...(o.tokenizer && o.tokenizer !== 'estimate' ? { tokenizer: o.tokenizer } : {}),
  };

  const total = countSessionLines(text);
  const bar = o.progress
    ? new SingleBar(
        {
          format: 'replay [{bar}] {value}/{total} sessions | {eta_formatted} left | {session}',
          stream: process.stderr,
          hideCursor: true,
          clearOnComplete: false,
        },
        Presets.shades_classic,
      )
    : undefined;
  bar?.start(total, 0, { session: '' });
  const started = performance.now();
  const report = replayText(text, options, (p) =>
    bar?.update(p.done, { session: (p.sessionId ?? `line ${p.line}`).slice(0, 60) }),
  );
  bar?.stop();
  const seconds = (performance.now() - started) / 1000;

  const json = `${JSON.stringify(report, null, 2)}\n`;
  if (o.out) writeFileSync(o.out, json);
  else process.stdout.write(json);

  const table = summaryTable(report);
  const print = (s: string) => (o.out ? process.stdout : process.stderr).write(`${s}\n`);
  print(table);
  for (const e of report.errors)
    process.stderr.write(`replay: ${formatInputError({ ...e, message: e.message.split('\n')[0]! })}\n`);
  print(
    `${report.totals.sessions} sessions replayed in ${seconds.toFixed(2)} s${o.out ? `, report written to ${o.out}` : ''}`,
  );
  return report.errors.length > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
