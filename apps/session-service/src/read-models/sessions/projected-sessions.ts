import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ProjectionProgress, samePosition } from '../../projector/projection-progress';
import { READ_MODEL_READS, type ReadModelReads } from '../read-model.reads';
import type { SessionDocument } from './session.document';

/** Session documents kept at most; the least recently used go first. */
const MAX_SESSIONS = 50_000;

/**
 * The session documents of the partitions this instance projects, answered from memory while they are
 * current (`ProjectionProgress.position`: the partition is owned here and its run is unbroken since the
 * document was kept); otherwise read by `_id`. Kept: what the projector wrote, and what a read found while no
 * batch of the partition was handled (a batch written during the read may be missing from it).
 */
@Injectable()
export class ProjectedSessions {
  private readonly sessions = new LRUCache<string, { doc: SessionDocument; run: number }>({ max: MAX_SESSIONS });

  constructor(
    @Inject(READ_MODEL_READS) private readonly reads: ReadModelReads,
    private readonly progress: ProjectionProgress,
  ) {
    progress.onSessionsWritten((written, at) => {
      for (const doc of written.sessions) this.sessions.set(doc._id, { doc, run: at.run });
    });
  }

  /**
   * The session as its tenant sees it (another tenant's session does not exist for them), and whether the id is
   * taken by another tenant's session (appends to it are refused): one lookup for both.
   */
  async lookup(
    tenant: string,
    sessionId: string,
  ): Promise<{ session: SessionDocument | null; ownedByAnotherTenant: boolean }> {
    const doc = await this.read(sessionId);
    return {
      session: doc?.tenant === tenant ? doc : null,
      ownedByAnotherTenant: doc !== null && doc.tenant !== tenant,
    };
  }

  /** The session as its tenant sees it. */
  async find(tenant: string, sessionId: string): Promise<SessionDocument | null> {
    return (await this.lookup(tenant, sessionId)).session;
  }

  /** Whether the id is taken by another tenant's session. */
  async ownedByAnotherTenant(tenant: string, sessionId: string): Promise<boolean> {
    return (await this.lookup(tenant, sessionId)).ownedByAnotherTenant;
  }

  /** The session as kept in memory while current, without a read; undefined when not kept (or not current). */
  peek(tenant: string, sessionId: string): SessionDocument | null | undefined {
    const kept = this.sessions.get(sessionId);
    if (!kept || kept.run !== this.progress.position('sessionEvents', sessionId)?.run) return undefined;
    return kept.doc.tenant === tenant ? kept.doc : null;
  }

  private async read(sessionId: string): Promise<SessionDocument | null> {
    const before = this.progress.position('sessionEvents', sessionId);
    const kept = this.sessions.get(sessionId);
    let doc: SessionDocument | null;
    if (kept && kept.run === before?.run) doc = kept.doc;
    else {
      doc = await this.reads.session(sessionId);
      if (doc && before && samePosition(before, this.progress.position('sessionEvents', sessionId))) {
        this.sessions.set(doc._id, { doc, run: before.run });
      }
    }
    return doc;
  }
}
