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
} as const;

/** An insert-once upsert of a document with a deterministic `_id`: a second write of the id changes nothing. */
export function insertOnce<T extends { readonly _id: string }>(doc: T) {
  const { _id, ...fields } = doc;
  return { updateOne: { filter: { _id }, update: { $setOnInsert: fields }, upsert: true } } as const;
}
