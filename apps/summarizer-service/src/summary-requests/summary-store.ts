import type { ProviderName } from '../config/summarizer-service.env';

/** The stored result of one request: what was (or will be) published for it. */
export interface StoredSummary {
  readonly requestId: string;
  readonly sessionId: string;
  readonly tenant: string;
  readonly outcome: 'completed' | 'failed';
  readonly provider: ProviderName;
  readonly model?: string;
  readonly summary?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly reason?: string;
  readonly retryable?: boolean;
  /** A redelivery reuses this result (a completed summary, or a failure caused by the request itself). */
  readonly reusable: boolean;
  /** 1 for the first result; a non-reusable result is replaced by the next attempt's (2, 3, …). */
  readonly attempt: number;
  readonly createdAt: Date;
  /** Set once the result event is on Kafka. */
  readonly publishedAt?: Date;
}

export const SUMMARY_STORE = Symbol('SUMMARY_STORE');

/**
 * The port of the `summaries` collection: one document per request id. `save` is first-writer-wins: when
 * another worker stored a result for the same attempt first, theirs is returned and must be published.
 */
export interface SummaryStore {
  find(requestId: string): Promise<StoredSummary | null>;
  save(result: StoredSummary): Promise<StoredSummary>;
  markPublished(requestId: string, attempt: number, at: Date): Promise<void>;
}

/** For tests and wiring without a database. */
export class InMemorySummaryStore implements SummaryStore {
  readonly docs = new Map<string, StoredSummary>();

  async find(requestId: string): Promise<StoredSummary | null> {
    return this.docs.get(requestId) ?? null;
  }

  async save(result: StoredSummary): Promise<StoredSummary> {
    const existing = this.docs.get(result.requestId);
    if (!existing ? result.attempt === 1 : existing.attempt === result.attempt - 1) {
      this.docs.set(result.requestId, result);
      return result;
    }
    return existing ?? result;
  }

  async markPublished(requestId: string, attempt: number, at: Date): Promise<void> {
    const existing = this.docs.get(requestId);
    if (existing && existing.attempt === attempt) this.docs.set(requestId, { ...existing, publishedAt: at });
  }
}
