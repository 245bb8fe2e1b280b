import type { mongo } from 'mongoose';

/** The names of a collection's indexes (none when the collection does not exist yet). */
async function indexNames(db: mongo.Db, collection: string): Promise<Set<string>> {
  const list = await db
    .collection(collection)
    .listIndexes()
    .toArray()
    .catch(() => []);
  return new Set(list.map((i) => i.name as string));
}

/**
 * Creates the indexes of a collection that are missing, one at a time, and tolerates another process
 * creating the same index at the same moment (services boot side by side).
 * One at a time because FerretDB 1.24 drops the connection when `createIndexes` is given an index that
 * already exists; when that happens because someone else just made it, the index is there on a second look.
 */
export async function ensureIndexes(
  db: mongo.Db,
  collection: string,
  indexes: readonly mongo.IndexDescription[],
): Promise<void> {
  const names = () => indexNames(db, collection);
  const existing = await names();
  for (const index of indexes) {
    if (!index.name) throw new Error(`an index of ${collection} has no name: name every index`);
    if (existing.has(index.name)) continue;
    try {
      await db.collection(collection).createIndexes([index]);
    } catch (error) {
      await new Promise((r) => setTimeout(r, 200)); // let the driver reconnect if the server dropped us
      if (!(await names()).has(index.name)) throw error;
    }
  }
}

/**
 * Drops indexes a collection no longer needs (each one costs every insert), where they exist: a database
 * made by an older version has them, a new one never had them. Tolerates a missing collection or index and
 * another process dropping the same index at the same moment.
 */
export async function dropIndexes(db: mongo.Db, collection: string, names: readonly string[]): Promise<void> {
  const existing = await indexNames(db, collection);
  for (const name of names) {
    if (!existing.has(name)) continue;
    await db
      .collection(collection)
      .dropIndex(name)
      .catch((error: unknown) => {
        if ((error as { code?: number }).code !== 27) throw error; // 27 IndexNotFound: dropped meanwhile
      });
  }
}
