import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import { dropIndexes, ensureIndexes } from '@ctxledger/persistence';
import type { Connection, mongo } from 'mongoose';
import type { BlockDocument, BlockHeadDocument } from './blocks/block.document';
import type { MessageDocument } from './messages/message.document';
import type { SessionDocument } from './sessions/session.document';
import { COLLECTIONS } from './storable';

/**
 * The read model's collections (native driver, through the one Mongoose connection) and their indexes.
 * Only plain unique/compound indexes: FerretDB v1 has no partial or TTL ones.
 */
@Injectable()
export class ReadModelStore implements OnModuleInit {
  constructor(@InjectConnection() private readonly connection: Connection) {}

  async onModuleInit(): Promise<void> {
    await ensureReadModelIndexes(this.db);
  }

  get db(): mongo.Db {
    const db = this.connection.db;
    if (!db) throw new Error('MongoDB is not connected');
    return db;
  }

  get sessions(): mongo.Collection<SessionDocument> {
    return this.db.collection<SessionDocument>(COLLECTIONS.sessions);
  }

  get messages(): mongo.Collection<MessageDocument> {
    return this.db.collection<MessageDocument>(COLLECTIONS.messages);
  }

  get blocks(): mongo.Collection<BlockDocument> {
    return this.db.collection<BlockDocument>(COLLECTIONS.blocks);
  }

  get blockHeads(): mongo.Collection<BlockHeadDocument> {
    return this.db.collection<BlockHeadDocument>(COLLECTIONS.blockHeads);
  }
}

const INDEXES: Record<string, mongo.IndexDescription[]> = {
  [COLLECTIONS.messages]: [{ key: { sessionId: 1, position: 1 }, name: 'session_position', unique: true }],
  [COLLECTIONS.blocks]: [{ key: { sessionId: 1, createdOffset: 1 }, name: 'session_created_offset' }],
};

/**
 * Indexes of earlier versions that no query uses: dropped where they exist. (`session_client_message_id`: the
 * projector reads a session's message ids by `sessionId`, which `session_position` serves; the extra index cost
 * every message insert about a tenth of FerretDB's CPU for it.)
 */
const OBSOLETE_INDEXES: Record<string, string[]> = {
  [COLLECTIONS.messages]: ['session_client_message_id'],
};

/**
 * Creates the read model's missing collections and indexes (see ensureIndexes for FerretDB's quirk) and drops
 * its obsolete indexes. Every collection exists before the projector writes: FerretDB v1 was seen to hang (every
 * connection waiting, no CPU) when concurrent batches created the same collection implicitly.
 */
export async function ensureReadModelIndexes(db: mongo.Db): Promise<void> {
  for (const [collection, indexes] of Object.entries(INDEXES)) await ensureIndexes(db, collection, indexes);
  for (const [collection, names] of Object.entries(OBSOLETE_INDEXES)) await dropIndexes(db, collection, names);
  const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  for (const name of Object.values(COLLECTIONS)) {
    if (existing.has(name)) continue;
    await db.createCollection(name).catch((error: unknown) => {
      if ((error as { code?: number }).code !== 48) throw error; // 48: created meanwhile by another instance
    });
  }
}
