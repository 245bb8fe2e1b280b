import { Module } from '@nestjs/common';
import { ReadModelStore } from './read-model.store';

/** The MongoDB read model: sessions, their messages and their blocks (one folder per read model). */
@Module({
  providers: [ReadModelStore],
  exports: [ReadModelStore],
})
export class ReadModelModule {}
