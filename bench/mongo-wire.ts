/**
 * The local MongoDB-wire server's cost per request as collections grow (deploy/local/README.md, "Patches").
 *
 *   npm run bench:mongo-wire            # against the local stack (`npm start` or deploy/local/stack up)
 *
 * One request at a time, the mean of `--reps` requests, on collections of 10, 500 and 3,000 small documents in a
 * throwaway database. Lookups by `_id` of the last document inserted (a scan would reach it last).
 */
import { Command } from 'commander';
import { mongo } from 'mongoose';
import { stackEnv } from '../tools/local-stack';

const opts = new Command()
  .option('--uri <uri>', 'MongoDB URI (default: the local stack)')
  .option('--reps <n>', 'requests per measure', '50')
  .parse()
  .opts<{ uri?: string; reps: string }>();

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
  } finally {
    await db.dropDatabase();
    await client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
