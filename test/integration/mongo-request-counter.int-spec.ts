import { mongo } from 'mongoose';
import { startCountingProxy, type CountingProxy } from '../../bench/mongo-request-counter';
import { testStack, unique } from '../support/stack-settings';

/** The bench's counting proxy between the real driver and the real MongoDB-wire server. */
describe('the counting proxy (npm run bench -- --count-requests)', () => {
  let proxy: CountingProxy;
  let client: mongo.MongoClient;
  const dbName = unique('count').replace(/-/g, '_');

  beforeAll(async () => {
    proxy = await startCountingProxy(testStack().mongoUri);
    client = await new mongo.MongoClient(proxy.uri, { maxPoolSize: 4 }).connect();
  });

  afterAll(async () => {
    await client.db(dbName).dropDatabase();
    await client.close();
    await proxy.close();
  });

  /** The driver's own monitoring (`hello`, `ping`) may come at any time: not what the test makes. */
  const made = (counts: Map<string, unknown>) =>
    Object.fromEntries([...counts].filter(([key]) => !/^(?:hello|ismaster|isMaster|ping)\b/.test(key)));

  it("counts the driver's requests by command and collection, with their documents, and passes the answers on", async () => {
    const c = client.db(dbName).collection<{ _id: string; v: number }>('things');
    await c.insertOne({ _id: 'warm', v: 0 }); // the collection exists before the counted requests
    proxy.take();
    await c.insertMany(Array.from({ length: 5 }, (_, i) => ({ _id: `d${i}`, v: i })));
    const written = await c.bulkWrite(
      [0, 1, 2].map((i) => ({ updateOne: { filter: { _id: `d${i}`, v: i }, update: { $set: { v: i + 10 } } } })),
      { ordered: false },
    );
    const found = await c.findOne({ _id: 'd1' });
    await c.deleteOne({ _id: 'd4' });
    const counts = made(proxy.take());

    expect(written.matchedCount).toBe(3);
    expect(found).toEqual({ _id: 'd1', v: 11 });
    const timed = { ms: { p50: expect.any(Number), p99: expect.any(Number), max: expect.any(Number) } };
    expect(counts).toEqual({
      'insert things': { requests: 1, documents: 5, ...timed },
      'update things': { requests: 1, documents: 3, ...timed },
      'find things': { requests: 1, documents: 0, ...timed },
      'delete things': { requests: 1, documents: 1, ...timed },
    });
    // Each answer's time: one request each, so p50 = p99 = max, and more than nothing (a real round trip).
    for (const { ms } of Object.values(counts) as { ms: { p50: number; p99: number; max: number } }[]) {
      expect(ms.p50).toBe(ms.max);
      expect(ms.max).toBeGreaterThan(0);
    }
    expect(made(proxy.take())).toEqual({}); // taken: counting starts again from zero
  });
});
