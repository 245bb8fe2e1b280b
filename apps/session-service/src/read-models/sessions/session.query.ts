import type { ReadModelStore } from '../read-model.store';
import type { SessionPage } from '../read-model.reads';
import type { SessionDocument } from './session.document';

export function sessionById(store: ReadModelStore, sessionId: string): Promise<SessionDocument | null> {
  return store.sessions.findOne({ _id: sessionId });
}

/** A page of the tenant's sessions whose id contains `idContains`, most recently updated first. */
export async function sessionsOf(
  store: ReadModelStore,
  tenant: string,
  idContains: string | undefined,
  offset: number,
  limit: number,
): Promise<SessionPage> {
  // idContains is letters, digits and _:@- only (validated); escaped all the same.
  const filter = {
    tenant,
    ...(idContains !== undefined && { _id: { $regex: idContains.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&') } }),
  };
  const [docs, total] = await Promise.all([
    store.sessions.find(filter).sort({ updatedAt: -1, _id: 1 }).skip(offset).limit(limit).toArray(),
    store.sessions.countDocuments(filter),
  ]);
  return { docs, total };
}
