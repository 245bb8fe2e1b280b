import { statSync } from 'node:fs';
import { join } from 'node:path';
import mongoose, { Schema, type Connection } from 'mongoose';
import { stackStateDir } from '../../tools/local-stack';
import { testStack, unique } from '../support/stack-settings';

describe('local MongoDB-wire server (smoke)', () => {
  let connection: Connection;
  const dbName = unique('smoke').replace(/-/g, '_');

  beforeAll(async () => {
    connection = await mongoose.createConnection(testStack().mongoUri, { dbName }).asPromise();
  });

  afterAll(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  it('answers ping', async () => {
    const answer = await connection.db!.admin().ping();
    expect(answer.ok).toBe(1);
  });

  it('rejects a duplicate on a unique compound index', async () => {
    const Message = connection.model(
      'SmokeMessage',
      new Schema({ sessionId: String, position: Number, content: String }).index(
        { sessionId: 1, position: 1 },
        { unique: true },
      ),
    );
    await Message.syncIndexes();
    await Message.create({ sessionId: 's1', position: 0, content: 'first' });
    await Message.create({ sessionId: 's1', position: 1, content: 'second' });
    await Message.create({ sessionId: 's2', position: 0, content: 'other session' });

    await expect(Message.create({ sessionId: 's1', position: 0, content: 'duplicate' })).rejects.toMatchObject({
      code: 11000,
    });
    expect(await Message.countDocuments({ sessionId: 's1' })).toBe(2);
    expect((await Message.findOne({ sessionId: 's1', position: 0 }).lean())?.content).toBe('first');
  });

  it('upserts with $setOnInsert: inserts once, later upserts leave those fields alone', async () => {
    const Session = connection.model('SmokeSession', new Schema({ _id: String, createdBy: String, lastSeen: Number }));
    const upsert = (by: string, seen: number) =>
      Session.updateOne(
        { _id: 'sess-1' },
        { $setOnInsert: { createdBy: by }, $set: { lastSeen: seen } },
        { upsert: true },
      );

    const first = await upsert('first-writer', 1);
    expect(first.upsertedCount).toBe(1);
    const second = await upsert('second-writer', 2);
    expect(second.upsertedCount).toBe(0);
    expect(second.matchedCount).toBe(1);

    const doc = await Session.findById('sess-1').lean();
    expect(doc).toMatchObject({ createdBy: 'first-writer', lastSeen: 2 });
  });

  // deploy/local/ferretdb/patches/02: FerretDB v1.24.2 kept every statement's connection until the end of an
  // `update` command, so one bulk write of 100 or more updates waited forever for a connection of its pool of
  // 100 (and held the whole database). The projector writes one session update per session of a batch.
  it('takes one bulk write of 250 updates by _id (the size of a projector batch over 250 sessions)', async () => {
    const collection = connection.db!.collection<{ _id: string; lastOffset: number }>('bulk_updates');
    await collection.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: `s${i}`, lastOffset: 0 })));
    const result = await collection.bulkWrite(
      Array.from({ length: 250 }, (_, i) => ({
        updateOne: { filter: { _id: `s${i}`, lastOffset: 0 }, update: { $set: { lastOffset: i + 1 } } },
      })),
      { ordered: false },
    );
    expect(result.matchedCount).toBe(250);
    expect(await collection.findOne({ _id: 's249' })).toEqual({ _id: 's249', lastOffset: 250 });
  }, 30_000);

  // deploy/local/ferretdb/patches/01 and 03: a lookup by `_id` uses the `_id` index, also when the filter has
  // other conditions (the projector's guarded session write); unpatched, both plans are a SCAN of the table.
  it('looks documents up by _id through the _id index, alone or with other conditions, and still applies them', async () => {
    const db = connection.db!;
    const collection = db.collection<{ _id: string; lastOffset: number }>('guarded');
    await collection.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: `s${i}`, lastOffset: i })));
    const planOf = async (filter: object) => {
      const explained = await db.command({ explain: { find: 'guarded', filter } });
      return (explained.queryPlanner as { Plan: string[] }).Plan.join('\n');
    };
    expect(await planOf({ _id: 's7' })).toMatch(/SEARCH .* USING INDEX/);
    expect(await planOf({ _id: 's7', lastOffset: 7 })).toMatch(/SEARCH .* USING INDEX/);
    expect(await planOf({ lastOffset: 7 })).toMatch(/SCAN/); // the probe can tell a scan from a search

    // The other conditions are still applied to the document found by _id.
    expect(await collection.findOne({ _id: 's7', lastOffset: 8 })).toBeNull();
    const stale = await collection.updateOne({ _id: 's7', lastOffset: 6 }, { $set: { lastOffset: 100 } });
    expect(stale.matchedCount).toBe(0);
    const current = await collection.updateOne({ _id: 's7', lastOffset: 7 }, { $set: { lastOffset: 8 } });
    expect(current.modifiedCount).toBe(1);
    expect(await collection.findOne({ _id: 's7', lastOffset: { $gte: 8 } })).toEqual({ _id: 's7', lastOffset: 8 });
    expect(await collection.countDocuments({ lastOffset: 8 })).toBe(2); // s7 and s8
  });

  // deploy/local/ferretdb/patches/04: an `update` held its query open while it wrote, so no WAL checkpoint could
  // reset the database's write-ahead log: under a steady flow of updates (the projector's session writes) it grew
  // without end (150 MB after 18,000 updates of 3,000 documents), each update slower as it grew.
  it('keeps the write-ahead log bounded under a steady flow of updates', async () => {
    const collection = connection.db!.collection<{ _id: string; lastOffset: number }>('steady_updates');
    await collection.insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: `s${i}`, lastOffset: 0 })));
    for (let round = 1; round <= 40; round++) {
      const result = await collection.bulkWrite(
        Array.from({ length: 100 }, (_, i) => ({
          updateOne: { filter: { _id: `s${i}`, lastOffset: round - 1 }, update: { $set: { lastOffset: round } } },
        })),
        { ordered: false },
      );
      expect(result.matchedCount).toBe(100);
    }
    // The local stack's SQLite files: one database per file, its log beside it. SQLite checkpoints the log at 1,000
    // pages (4 MB) and starts it over when no reader holds an older snapshot; 4,000 updates write about 10,000 pages.
    const wal = join(stackStateDir(), 'mongo', 'data', `${dbName}.sqlite-wal`);
    expect(statSync(wal).size).toBeLessThan(8 * 1024 * 1024);
  }, 60_000);
});
