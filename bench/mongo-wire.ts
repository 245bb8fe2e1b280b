/**
 * The local MongoDB-wire server's cost per request as collections grow (deploy/local/README.md, "Patches").
 *
 *   npm run bench:mongo-wire            # against the local stack (`npm start` or deploy/local/stack up)
 *
 * One request at a time, the mean of `--reps` requests, on collections of 10, 500 and 3,000 small documents in a
 * throwaway database. Lookups by `_id` of the last document inserted (a scan would reach it last).
 *
 * Then the projector's writes as it makes them, with the server's CPU per document or statement (from
 * /proc/<pid>/stat: the local stack's FerretDB, or `--pid`): message documents inserted 370 at a time, with the
 * read model's one index and with a second one; session documents updated 27 to a bulk write, guarded on their
 * last offset as the projector does, or by `_id` alone. Last, a steady flow of 6,000 guarded updates: the CPU per
 * update at its start and at its end, and the size of the write-ahead log it leaves.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { mongo } from 'mongoose';
import { repoRoot, stackEnv, stackStateDir } from '../tools/local-stack';
import { cpuMsOf } from './pipeline-support';

const opts = new Command()
  .option('--uri <uri>', 'MongoDB URI (default: the local stack)')
  .option('--reps <n>', 'requests per measure', '50')
  .option('--pid <pid>', "the server's process, for its CPU (default: the local stack's FerretDB)")
  .parse()
  .opts<{ uri?: string; reps: string; pid?: string }>();

/** The server's process: `--pid`, else the local stack's FerretDB when the URI is the local stack's. */
function serverPid(): number | undefined {
  if (opts.pid) return Number(opts.pid);
  if (opts.uri) return undefined;
  try {
    const file = resolve(repoRoot, '.stack', process.env.STACK_INSTANCE ?? 'default', 'mongo.pid');
    return Number(readFileSync(file, 'utf8').trim());
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const uri = opts.uri ?? stackEnv().MONGODB_URI!;
  const client = new mongo.MongoClient(uri);
  await client.connect();
  const db = client.db(`bench_wire_${Date.now().toString(36)}`);
  const reps = Number(opts.reps);
  const rows: Record<string, Record<string, string>> = {};
  const time = async (label: string, n: number, run: (i: number) => Promise<unknown>) => {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) await run(i);
    (rows[label] ??= {})[`N = ${n.toLocaleString('en')}`] = `${((performance.now() - t0) / reps).toFixed(2)} ms`;
  };
  try {
    for (const n of [10, 500, 3000]) {
      const c = db.collection<{ _id: string; lastOffset: number }>(`c${n}`);
      await c.insertMany(Array.from({ length: n }, (_, i) => ({ _id: `s${i}`, lastOffset: 0 })));
      const last = `s${n - 1}`;
      await time('updateOne({_id})', n, (i) => c.updateOne({ _id: last }, { $set: { lastOffset: i } }));
      // A guarded update (the projector's session write): `_id` and a condition on another field.
      await time('updateOne({_id, lastOffset})', n, (i) =>
        c.updateOne({ _id: last, lastOffset: { $gte: 0 } }, { $set: { lastOffset: i + 1 } }),
      );
      await time('findOne({_id})', n, () => c.findOne({ _id: last }));
      await time('find({_id: {$in: [one id]}})', n, () => c.find({ _id: { $in: [last] } }).toArray());
      await time('insertOne', n, (i) => c.insertOne({ _id: `new${i}`, lastOffset: 0 }));
    }
    console.table(rows);
    // One bulk write of 250 updates: an unpatched FerretDB v1.24.2 never answers it (and blocks the database).
    const bulk = db.collection<{ _id: string; v: number }>('bulk');
    await bulk.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: `b${i}`, v: 0 })));
    const t0 = performance.now();
    const done = bulk.bulkWrite(
      Array.from({ length: 250 }, (_, i) => ({ updateOne: { filter: { _id: `b${i}` }, update: { $set: { v: 1 } } } })),
      { ordered: false },
    );
    const answered = await Promise.race([
      done.then(() => true),
      new Promise<false>((r) => setTimeout(r, 20_000, false)),
    ]);
    console.log(
      answered
        ? `one bulkWrite of 250 updateOne by _id: ${(performance.now() - t0).toFixed(0)} ms`
        : 'one bulkWrite of 250 updateOne by _id: no answer within 20 s (the server is stuck; restart it)',
    );
    if (!answered) process.exit(2);
    await projectorWrites(db);
  } finally {
    await db.dropDatabase();
    await client.close();
  }
}

/** The projector's writes, with the server's CPU per document (inserts) or statement (updates). */
async function projectorWrites(db: mongo.Db): Promise<void> {
  const pid = serverPid();
  if (pid === undefined) return console.log("projector's writes: no server process to read the CPU of (--pid)");
  const rows: Record<string, Record<string, string>> = {};
  const measure = async (label: string, units: number, run: () => Promise<unknown>) => {
    const c0 = cpuMsOf(pid);
    const t0 = performance.now();
    await run();
    rows[label] = {
      'server CPU per unit': `${((cpuMsOf(pid) - c0) / units).toFixed(3)} ms`,
      'wall per unit': `${((performance.now() - t0) / units).toFixed(3)} ms`,
    };
  };
  // Message documents of about the pipeline's size (1.5 KB), 200 sessions, 370 to a request.
  const content = 'The build of the package failed with one error in src/index.ts; fixing it now. '.repeat(18);
  const messages = Array.from({ length: 3700 }, (_, i) => ({
    _id: `s${i % 200}:${Math.floor(i / 200)}`,
    sessionId: `s${i % 200}`,
    position: Math.floor(i / 200),
    offset: i,
    eventId: `e${i}`,
    message: { role: 'tool', content },
    tokens: 320,
  }));
  for (const [label, indexes] of [
    ['insert a message (370 a request), one index', 1],
    ['insert a message (370 a request), two indexes', 2],
  ] as const) {
    const c = db.collection<{ _id: string }>(`messages${indexes}`);
    await db.createCollection(`messages${indexes}`);
    await c.createIndexes([{ key: { sessionId: 1, position: 1 }, name: 'session_position', unique: true }]);
    if (indexes === 2) await c.createIndexes([{ key: { sessionId: 1, clientMessageId: 1 }, name: 'second' }]);
    await measure(label, messages.length, async () => {
      for (let i = 0; i < messages.length; i += 370) await c.insertMany(messages.slice(i, i + 370), { ordered: false });
    });
  }
  // Session documents, 27 to a bulk write (a batch's sessions), 30 bulk writes.
  const sessions = db.collection<{ _id: string; lastOffset: number; messageCount: number; updatedAt: string }>(
    'sessions',
  );
  const docs = Array.from({ length: 200 }, (_, i) => ({
    _id: `s${i}`,
    tenant: 'bench',
    config: { provider: 'anthropic', contextWindow: 32_000, maxOutputTokens: 4000 },
    messageCount: 0,
    partition: i % 6,
    lastOffset: 0,
    updatedAt: new Date().toISOString(),
  }));
  await sessions.insertMany(docs);
  let offset = 0;
  for (const guarded of [true, false]) {
    await measure(
      `update a session (27 a bulk write)${guarded ? ', guarded on its last offset' : ', by _id'}`,
      810,
      async () => {
        for (let b = 0; b < 30; b++) {
          const ops = docs.slice((b * 27) % 200, ((b * 27) % 200) + 27).map((d) => {
            const expected = d.lastOffset;
            d.lastOffset = ++offset;
            d.messageCount++;
            const { _id, ...fields } = d;
            return {
              updateOne: {
                filter: guarded ? { _id, lastOffset: expected } : { _id },
                update: { $set: { ...fields, updatedAt: new Date().toISOString() } },
              },
            };
          });
          const r = await sessions.bulkWrite(ops, { ordered: false });
          if (r.matchedCount !== ops.length)
            throw new Error(`a guarded update matched ${r.matchedCount} of ${ops.length}`);
        }
      },
    );
  }
  console.table(rows);
  await steadyUpdates(db, pid);
}

/**
 * A steady flow of guarded updates (the projector's session writes over a long run): 200 documents, 6,000 updates in
 * bulk writes of 100, with the server's CPU per update over the first and the last 1,000 and the size of the
 * database's write-ahead log after (its SQLite file, when the server is the local stack's FerretDB).
 */
async function steadyUpdates(db: mongo.Db, pid: number): Promise<void> {
  const c = db.collection<{ _id: string; lastOffset: number; updatedAt: string }>('steady');
  await c.insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: `s${i}`, lastOffset: 0, updatedAt: '' })));
  const perUpdate: number[] = [];
  for (let round = 1; round <= 60; round++) {
    const c0 = cpuMsOf(pid);
    const first = ((round - 1) % 2) * 100;
    const ops = Array.from({ length: 100 }, (_, i) => ({
      updateOne: {
        filter: { _id: `s${first + i}`, lastOffset: Math.floor((round - 1) / 2) },
        update: { $set: { lastOffset: Math.floor((round - 1) / 2) + 1, updatedAt: new Date().toISOString() } },
      },
    }));
    const r = await c.bulkWrite(ops, { ordered: false });
    if (r.matchedCount !== ops.length) throw new Error(`a guarded update matched ${r.matchedCount} of ${ops.length}`);
    perUpdate.push((cpuMsOf(pid) - c0) / ops.length);
  }
  const mean = (xs: number[]) => (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3);
  const wal = opts.uri ? undefined : resolve(stackStateDir(), 'mongo', 'data', `${db.databaseName}.sqlite-wal`);
  const walBytes = wal && existsSync(wal) ? statSync(wal).size : undefined;
  console.log(
    `steady guarded updates (6,000 of 200 documents, 100 a bulk write): server CPU per update ${mean(perUpdate.slice(0, 10))} ms ` +
      `over the first 1,000, ${mean(perUpdate.slice(-10))} ms over the last 1,000; write-ahead log after: ` +
      (walBytes === undefined ? 'not read (another server)' : `${(walBytes / 1024 / 1024).toFixed(1)} MB`),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
