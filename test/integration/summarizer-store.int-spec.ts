import mongoose, { type Connection } from 'mongoose';
import { MongoSummaryStore } from '../../apps/summarizer-service/src/summary-requests/mongo-summary-store';
import type { StoredSummary } from '../../apps/summarizer-service/src/summary-requests/summary-store';
import { testStack, unique } from '../support/stack-settings';

/** The stack's MongoDB URI with another database name. */
function withDatabase(uri: string, db: string): string {
  const url = new URL(uri);
  url.pathname = `/${db}`;
  return url.toString();
}
/** The `summaries` collection on the real MongoDB-wire server (FerretDB locally): first writer wins. */
describe('MongoSummaryStore', () => {
  let connection: Connection;
  let store: MongoSummaryStore;

  beforeAll(async () => {
    const db = unique('summaries').replace(/-/g, '_');
    connection = await mongoose.createConnection(withDatabase(testStack().mongoUri, db)).asPromise();
    store = new MongoSummaryStore(connection);
    await store.onModuleInit();
  });

  afterAll(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  const result = (requestId: string, over: Partial<StoredSummary> = {}): StoredSummary => ({
    requestId,
    sessionId: 's1',
    tenant: 't1',
    outcome: 'completed',
    provider: 'openai',
    model: 'gpt-4o-mini',
    summary: '# Summary',
    inputTokens: 100,
    outputTokens: 10,
    reusable: true,
    attempt: 1,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    ...over,
  });

  it('has a unique index on requestId', async () => {
    const indexes = await connection.collection('summaries').indexes();
    expect(indexes).toEqual(expect.arrayContaining([expect.objectContaining({ key: { requestId: 1 }, unique: true })]));
  });

  it('keeps the first result of a request: concurrent saves all return the same winner', async () => {
    const id = unique('r');
    const saved = await Promise.all(['A', 'B', 'C'].map((s) => store.save(result(id, { summary: `# ${s}` }))));
    expect(new Set(saved.map((s) => s.summary)).size).toBe(1);
    expect(await store.find(id)).toEqual(saved[0]);
    expect(await connection.collection('summaries').countDocuments({ requestId: id })).toBe(1);
  });

  it('replaces a non-reusable failure by the next attempt, never a reusable result', async () => {
    const id = unique('r');
    await store.save(
      result(id, { outcome: 'failed', reason: 'rate limited', retryable: true, reusable: false, summary: undefined }),
    );
    const second = await store.save(result(id, { attempt: 2 }));
    expect(second).toMatchObject({ outcome: 'completed', attempt: 2 });
    const third = await store.save(result(id, { attempt: 3, summary: '# other' }));
    expect(third).toMatchObject({ attempt: 2, summary: '# Summary' });
  });

  it('marks the published attempt', async () => {
    const id = unique('r');
    await store.save(result(id));
    await store.markPublished(id, 1, new Date('2026-01-01T00:00:01Z'));
    expect((await store.find(id))?.publishedAt).toEqual(new Date('2026-01-01T00:00:01Z'));
    expect(await store.find('nope')).toBeNull();
  });
});
