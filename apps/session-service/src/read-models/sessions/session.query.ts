import type { ReadModelStore } from '../read-model.store';
import type { SessionDocument } from './session.document';

/** The session as its tenant sees it: another tenant's session does not exist for them. */
export async function findSession(
  store: ReadModelStore,
  tenant: string,
  sessionId: string,
): Promise<SessionDocument | null> {
  const doc = await store.sessions.findOne({ _id: sessionId });
  return doc && doc.tenant === tenant ? doc : null;
}

/** Whether the id is taken by another tenant's session (appends to it are refused). */
export async function ownedByAnotherTenant(store: ReadModelStore, tenant: string, sessionId: string): Promise<boolean> {
  const doc = await store.sessions.findOne({ _id: sessionId }, { projection: { tenant: 1 } });
  return doc !== null && doc.tenant !== tenant;
}
