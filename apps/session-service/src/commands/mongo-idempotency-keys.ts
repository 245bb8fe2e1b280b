import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { mongo } from 'mongoose';
import { ReadModelStore } from '../read-models/read-model.store';
import { conflictWith, idOfKey, type IdempotencyKeys, type KeyedRequest } from './idempotency-keys';

/**
 * The body an Idempotency-Key was first used with, by its fingerprint. One document per key and session, in
 * the service's database (not in a process): every instance and every restart answers the same, and a unique
 * `_id` settles two instances taking the same key at once. Written before the events are sent, so a key whose
 * first request had no clear outcome (Kafka did not answer) is bound to its body all the same.
 *
 * Not part of the read model: it is not rebuilt from the topics (a rebuild into a new database starts
 * without it; the clientMessageIds still deduplicate the retries, only a different body is no longer refused).
 */
export interface IdempotencyKeyDocument {
  /** `<tenant>/<sessionId>/<key>` ('/' is in none of them). */
  readonly _id: string;
  readonly tenant: string;
  readonly sessionId: string;
  readonly key: string;
  /** sha256 of the request's messages as canonical JSON (see requestFingerprint). */
  readonly fingerprint: string;
  readonly messages: number;
  readonly firstUsedAt: string;
}

export const IDEMPOTENCY_KEYS_COLLECTION = 'idempotency_keys';

@Injectable()
export class MongoIdempotencyKeys implements IdempotencyKeys, OnModuleInit {
  constructor(private readonly store: ReadModelStore) {}

  /** Created up front: FerretDB v1 was seen to hang when concurrent writes created a collection implicitly. */
  async onModuleInit(): Promise<void> {
    const existing = await this.store.db.listCollections({ name: IDEMPOTENCY_KEYS_COLLECTION }).toArray();
    if (existing.length > 0) return;
    await this.store.db.createCollection(IDEMPOTENCY_KEYS_COLLECTION).catch((error: unknown) => {
      if ((error as { code?: number }).code !== 48) throw error; // 48: created meanwhile by another instance
    });
  }

  private get keys(): mongo.Collection<IdempotencyKeyDocument> {
    return this.store.db.collection<IdempotencyKeyDocument>(IDEMPOTENCY_KEYS_COLLECTION);
  }

  /**
   * Binds the key to the request's body, or checks it against the body it is bound to: true when this call
   * bound it, false for a replay of the same body; IdempotencyConflictError (409) for another body.
   */
  async claim(request: KeyedRequest): Promise<boolean> {
    const _id = idOfKey(request);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.keys.insertOne({
          _id,
          tenant: request.tenant,
          sessionId: request.sessionId,
          key: request.key,
          fingerprint: request.fingerprint,
          messages: request.messages,
          firstUsedAt: new Date().toISOString(),
        });
        return true;
      } catch (error) {
        if ((error as { code?: number }).code !== 11000) throw error;
      }
      const bound = await this.keys.findOne({ _id });
      if (!bound) continue; // released meanwhile (its first request was refused): take it
      if (bound.fingerprint === request.fingerprint) return false;
      throw conflictWith(request, bound);
    }
    throw new Error(`Idempotency-Key ${request.key}: could not bind it (it was released three times meanwhile)`);
  }

  /** Unbinds a key this request bound when the request was refused before anything was sent (400, 413). */
  async release(request: KeyedRequest): Promise<void> {
    await this.keys.deleteOne({ _id: idOfKey(request), fingerprint: request.fingerprint });
  }
}
