import { Module } from '@nestjs/common';
import { ProjectorModule } from '../projector/projector.module';
import { BlockCache } from '../read-models/blocks/block-cache';
import { MessageCache } from '../read-models/messages/message-cache';
import { ReadModelModule } from '../read-models/read-model.module';
import { ProjectedSessions } from '../read-models/sessions/projected-sessions';
import { HistoryController } from './history.controller';
import { SessionQueriesService } from './session-queries.service';
import { SessionStatsController } from './session-stats.controller';

/**
 * The read side of the HTTP API: history, stats and blocks from the read model, through each read model's cache
 * (read-models/sessions|messages|blocks; provided here, where the projector's progress they follow is imported).
 */
@Module({
  imports: [ReadModelModule, ProjectorModule],
  controllers: [HistoryController, SessionStatsController],
  providers: [SessionQueriesService, ProjectedSessions, MessageCache, BlockCache],
  exports: [ProjectedSessions, MessageCache, BlockCache],
})
export class QueriesModule {}
