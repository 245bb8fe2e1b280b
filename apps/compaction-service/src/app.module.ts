import { Module } from '@nestjs/common';
import { PlatformModule } from '@ctxledger/platform';
import { CompactionModule } from './compaction/compaction.module';
import { CompactionServiceEnv } from './config/compaction-service.env';

/** Consumes the session stream and emits CompactionBlock events. */
@Module({
  imports: [
    PlatformModule.forService({ serviceName: 'compaction-service', env: CompactionServiceEnv }),
    CompactionModule,
  ],
})
export class AppModule {}
