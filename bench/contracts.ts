/**
 * Contract-check benchmark (a script, never a timed test):
 *
 *   npm run bench:contracts [-- --messages 2000 --reps 7]
 *
 * What checking one Kafka record against its contract costs, per record, for the `message.appended` events of a
 * synthetic agent session (bench/synthetic.ts: user asks, tool calls, tool results of mixed size): every consumer
 * decodes each record it reads (`decodeEvent`: limits, JSON, envelope, data — the compiled schema validators of
 * libs/contracts/src/schema/validator.ts), every producer checks each event it sends (`encodeEvent`). Side by side
 * in one run, interleaved, median over the repetitions: bare `JSON.parse` of the same records (the floor), the
 * whole `decodeEvent` and its steps (besides JSON.parse), and `encodeEvent`.
 *
 * Prints a table and writes bench/results/contracts.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import Table from 'cli-table3';
import { Command, InvalidArgumentError } from 'commander';
import {
  createEvent,
  decodeEvent,
  encodeEvent,
  Envelope,
  EVENT_TYPES,
  firstInvalidUtf8Byte,
  jsonNestsDeeperThan,
  LIMITS,
  validatorFor,
  type AnyEvent,
} from '@ctxledger/contracts';
import { syntheticSession } from './synthetic';

const positiveInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const options = new Command()
  .option('--messages <n>', 'messages of the synthetic session', positiveInt, 2000)
  .option('--reps <n>', 'repetitions (median reported)', positiveInt, 7)
  .option('--out <file>', 'where to write the results', resolve(__dirname, 'results/contracts.json'))
  .parse()
  .opts<{ messages: number; reps: number; out: string }>();

const events = syntheticSession(options.messages, 1).map(
  (m) => createEvent('message.appended', 'bench-session', m as never) as AnyEvent,
);
const values = events.map((e) => Buffer.from(encodeEvent(e)));
const parsed = values.map((v) => JSON.parse(v.toString()) as { data: object });
const dataSchema = EVENT_TYPES['message.appended'].data;
const record = (i: number) => ({ topic: 'bench', partition: 0, offset: String(i), key: 'bench-session' });
const envelopeValidator = validatorFor(Envelope, 'decode');
const dataValidator = validatorFor(dataSchema, 'decode');

/** Each step over every record once; what it returns is kept so that nothing is optimized away. */
const steps: Record<string, () => unknown> = {
  'JSON.parse (floor)': () => values.map((v) => JSON.parse(v.toString())),
  decodeEvent: () =>
    values.map((v, i) => {
      const decoded = decodeEvent(v, record(i), 'sessionEvents');
      if (!decoded.ok) throw new Error(decoded.reason);
      return decoded;
    }),
  '  depth check of the raw JSON': () => values.map((v) => jsonNestsDeeperThan(v, LIMITS.maxJsonDepth)),
  '  UTF-8 check of the raw bytes': () => values.map((v) => firstInvalidUtf8Byte(v)),
  '  envelope: compiled schema validator': () => parsed.map((p) => envelopeValidator(p)),
  '  data: compiled schema validator': () => parsed.map((p) => dataValidator(p.data)),
  encodeEvent: () => events.map((e) => encodeEvent(e)),
};

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const samples = new Map<string, number[]>(Object.keys(steps).map((k) => [k, []]));
for (const run of Object.values(steps)) run(); // warm-up
for (let rep = 0; rep < options.reps; rep++) {
  for (const [name, run] of Object.entries(steps)) {
    const before = cpuUs();
    run();
    samples.get(name)!.push((cpuUs() - before) / values.length);
  }
}
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const floor = median(samples.get('JSON.parse (floor)')!);
const rows = [...samples].map(([step, xs]) => ({
  step: step.trim(),
  cpuUsPerRecord: median(xs),
  toFloor: median(xs) / floor,
}));
const bytes = values.reduce((n, v) => n + v.length, 0);

const table = new Table({ head: ['step (per record)', 'CPU µs', '× JSON.parse'] });
for (const r of rows) table.push([r.step, r.cpuUsPerRecord.toFixed(1), r.toFloor.toFixed(1)]);
console.log(
  `${values.length} message.appended records, ${Math.round(bytes / values.length)} bytes on average; ` +
    `median of ${options.reps} repetitions, CPU time of this process`,
);
console.log(table.toString());

mkdirSync(dirname(options.out), { recursive: true });
writeFileSync(
  options.out,
  `${JSON.stringify(
    {
      command: `npm run bench:contracts -- --messages ${options.messages} --reps ${options.reps}`,
      node: process.version,
      cpu: cpus()[0]?.model,
      cores: cpus().length,
      measuredAt: new Date().toISOString(),
      loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
      records: values.length,
      meanBytes: Math.round(bytes / values.length),
      steps: rows,
    },
    null,
    2,
  )}\n`,
);
console.log(`written to ${options.out}`);
