import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { DatabaseUnavailableFilter } from './database-unavailable.filter';
import { ReadModelStore } from './read-model.store';

/** The MongoDB read model: sessions, their messages and their blocks (one folder per read model). */
@Module({
  providers: [ReadModelStore, { provide: APP_FILTER, useClass: DatabaseUnavailableFilter }],
  exports: [ReadModelStore],
})
export class ReadModelModule {}
