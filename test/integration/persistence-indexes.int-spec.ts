import mongoose, { type Connection, type mongo } from 'mongoose';
import { ensureIndexes } from '@ctxledger/persistence';
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
});
