import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import type { StoredSummary, SummaryStore } from './summary-store';
import { ensureIndexes } from '@ctxledger/persistence';

export const SUMMARIES_COLLECTION = 'summaries';

type Doc = StoredSummary & { _id: string };

/**
 * The `summaries` collection (unique on requestId: the document id is the request id). Only single-document
 * upserts with `$setOnInsert` and version-guarded updates: no transactions, so FerretDB runs it too.
 */
@Injectable()
export class MongoSummaryStore implements SummaryStore, OnModuleInit {
  private readonly logger = new Logger(MongoSummaryStore.name);

  constructor(@InjectConnection() private readonly connection: Connection) {}

  private get collection() {
    return this.connection.collection<Doc>(SUMMARIES_COLLECTION);
  }

  async onModuleInit(): Promise<void> {
    // _id is the request id (unique by nature); the named index documents it and serves lookups by requestId.
    await ensureIndexes(this.connection.db!, SUMMARIES_COLLECTION, [
      { key: { requestId: 1 }, unique: true, name: 'requestId_unique' },
    ]);
    this.logger.log(`collection ${SUMMARIES_COLLECTION} ready`);
  }

  async find(requestId: string): Promise<StoredSummary | null> {
    const doc = await this.collection.findOne({ _id: requestId });
    return doc ? strip(doc) : null;
  }

  async save(result: StoredSummary): Promise<StoredSummary> {
    const doc: Doc = { ...clean(result), _id: result.requestId };
    try {
      if (result.attempt === 1) {
        await this.collection.updateOne({ _id: result.requestId }, { $setOnInsert: doc }, { upsert: true });
      } else {
        // Replaces only the attempt it follows: a concurrent worker's newer result is never overwritten.
        const { _id, ...fields } = doc;
        await this.collection.updateOne({ _id, attempt: result.attempt - 1, reusable: false }, { $set: fields });
      }
    } catch (error) {
      // Two upserts racing on the same id: one loses with a duplicate-key error; the winner's result is read below.
      if ((error as { code?: number }).code !== 11000) throw error;
    }
    const stored = await this.collection.findOne({ _id: result.requestId });
    if (!stored) throw new Error(`the result of ${result.requestId} was not stored`);
    return strip(stored);
  }

  async markPublished(requestId: string, attempt: number, at: Date): Promise<void> {
    await this.collection.updateOne({ _id: requestId, attempt }, { $set: { publishedAt: at } });
  }
}

function strip(doc: Doc): StoredSummary {
  const { _id, ...rest } = doc;
  return rest;
}

function clean(result: StoredSummary): StoredSummary {
  return Object.fromEntries(Object.entries(result).filter(([, v]) => v !== undefined)) as unknown as StoredSummary;
}
