import mongoose, { type Connection, type mongo } from 'mongoose';
import { dropIndexes, ensureIndexes } from '@ctxledger/persistence';
import { ensureReadModelIndexes } from '../../apps/session-service/src/read-models/read-model.store';
import { testStack, unique } from '../support/stack-settings';

describe('ensureIndexes on the MongoDB-wire server', () => {
  const dbName = unique('idx').replace(/-/g, '_');
  let a: Connection;
  let b: Connection;

  beforeAll(async () => {
    [a, b] = await Promise.all(
      [0, 1].map(() => mongoose.createConnection(testStack().mongoUri, { dbName }).asPromise()),
    );
  });

  afterAll(async () => {
    await a.dropDatabase();
    await Promise.all([a.close(), b.close()]);
  });

  const indexes: mongo.IndexDescription[] = [
    { key: { sessionId: 1, position: 1 }, name: 'session_position', unique: true },
    { key: { sessionId: 1, clientMessageId: 1 }, name: 'session_client_message_id' },
  ];

  it('two processes booting side by side both succeed, and the indexes exist once', async () => {
    await Promise.all([ensureIndexes(a.db!, 'messages', indexes), ensureIndexes(b.db!, 'messages', indexes)]);
    const names = (await a.db!.collection('messages').listIndexes().toArray()).map((i) => i.name).sort();
    expect(names).toEqual(['_id_', 'session_client_message_id', 'session_position']);
  });

  it('is a no-op the second time, and the unique index is enforced', async () => {
    await ensureIndexes(a.db!, 'messages', indexes);
    await a.db!.collection('messages').insertOne({ sessionId: 's', position: 0 });
    await expect(a.db!.collection('messages').insertOne({ sessionId: 's', position: 0 })).rejects.toMatchObject({
      code: 11000,
    });
  });

  const indexNames = async (collection: string) =>
    (await a.db!.collection(collection).listIndexes().toArray()).map((i) => i.name as string).sort();

  it('dropIndexes drops the named indexes that exist, leaves the others, and tolerates a concurrent dropper', async () => {
    await ensureIndexes(a.db!, 'dropped', indexes);
    await Promise.all([
      dropIndexes(a.db!, 'dropped', ['session_client_message_id', 'never_made']),
      dropIndexes(b.db!, 'dropped', ['session_client_message_id']),
    ]);
    expect(await indexNames('dropped')).toEqual(['_id_', 'session_position']);
    await expect(dropIndexes(a.db!, 'no_such_collection', ['session_position'])).resolves.toBeUndefined();
  });

  it("the read model's boot drops the messages index of earlier versions and keeps the one its reads use", async () => {
    const db = a.useDb(`${dbName}_rm`).db!;
    await ensureIndexes(db, 'session_messages', indexes); // a database made by an earlier version
    await ensureReadModelIndexes(db);
    expect((await db.collection('session_messages').listIndexes().toArray()).map((i) => i.name).sort()).toEqual([
      '_id_',
      'session_position',
    ]);
    await db.dropDatabase();
  });
});
