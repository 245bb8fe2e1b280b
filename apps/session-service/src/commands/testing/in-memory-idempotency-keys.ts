import { conflictWith, idOfKey, type BoundBody, type IdempotencyKeys, type KeyedRequest } from '../idempotency-keys';

/** The keys' bindings in memory (one process): the same answers as MongoIdempotencyKeys. */
export class InMemoryIdempotencyKeys implements IdempotencyKeys {
  readonly bound = new Map<string, BoundBody>();

  claim(request: KeyedRequest): Promise<boolean> {
    const id = idOfKey(request);
    const bound = this.bound.get(id);
    if (!bound) {
      const { fingerprint, messages } = request;
      this.bound.set(id, { fingerprint, messages, firstUsedAt: new Date().toISOString() });
      return Promise.resolve(true);
    }
    if (bound.fingerprint === request.fingerprint) return Promise.resolve(false);
    return Promise.reject(conflictWith(request, bound));
  }

  release(request: KeyedRequest): Promise<void> {
    const id = idOfKey(request);
    if (this.bound.get(id)?.fingerprint === request.fingerprint) this.bound.delete(id);
    return Promise.resolve();
  }
}
