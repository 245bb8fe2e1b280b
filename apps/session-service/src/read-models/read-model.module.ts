import { Module } from '@nestjs/common';
import { MongoReadModelProjection } from './mongo-read-model-projection';
import { MongoReadModelReads } from './mongo-read-model-reads';
import { READ_MODEL_PROJECTION } from './read-model.projection';
import { READ_MODEL_READS } from './read-model.reads';
import { ReadModelStore } from './read-model.store';

/** The MongoDB read model: sessions, their messages and their blocks (one folder per read model). */
@Module({
  providers: [
    ReadModelStore,
    { provide: READ_MODEL_READS, useClass: MongoReadModelReads },
    { provide: READ_MODEL_PROJECTION, useClass: MongoReadModelProjection },
  ],
  exports: [ReadModelStore, READ_MODEL_READS, READ_MODEL_PROJECTION],
})
export class ReadModelModule {}
