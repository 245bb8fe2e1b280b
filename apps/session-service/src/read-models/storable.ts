import type { mongo } from 'mongoose';

/**
 * What MongoDB (and FerretDB v1) can store as given: no keys with dots or a leading `$`, no arrays directly
 * inside arrays. Events that would break this are refused (dead-lettered) instead of failing every retry.
 */
export function unstorableReason(value: unknown, path = ''): string | undefined {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (Array.isArray(value[i])) return `${path}[${i}]: arrays inside arrays cannot be stored`;
      const inner = unstorableReason(value[i], `${path}[${i}]`);
      if (inner) return inner;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      const here = path ? `${path}.${key}` : key;
      if (key.includes('.') || key.startsWith('$')) return `${here}: keys with dots or a leading $ cannot be stored`;
      const reason = unstorableReason(inner, here);
      if (reason) return reason;
    }
  }
  return undefined;
}

/** Collection names of the read model (one database holds one deployment's read model). */
export const COLLECTIONS = {
  sessions: 'sessions',
  messages: 'session_messages',
  blocks: 'session_blocks',
  /** Per session: the block-stream offset of its last projected block event (what a read cache checks). */
  blockHeads: 'session_block_heads',
} as const;

/**
 * Inserts documents with deterministic `_id`s once: an id already stored is a duplicate and changes nothing
 * (its duplicate-key error is the guard). Unordered, so one duplicate does not stop the others. (An
 * insertMany is ~20× faster than as many `$setOnInsert` upserts on FerretDB and as safe.)
 */
export async function insertOnce<T extends { readonly _id: string }>(
  collection: mongo.Collection<T>,
  docs: readonly T[],
): Promise<void> {
  if (docs.length === 0) return;
  try {
    await collection.insertMany(docs as mongo.OptionalUnlessRequiredId<T>[], { ordered: false });
  } catch (error) {
    const writeErrors = (error as { writeErrors?: { code?: number }[] | { code?: number } }).writeErrors;
    const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
    if (list.length === 0 || list.some((e) => e.code !== 11000)) throw error;
  }
}
