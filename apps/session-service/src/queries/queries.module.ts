import { Module } from '@nestjs/common';
import { ProjectorModule } from '../projector/projector.module';
import { ReadModelModule } from '../read-models/read-model.module';
import { HistoryController } from './history.controller';
import { BlockCache } from '../read-models/blocks/block-cache';
import { MessageCache } from '../read-models/messages/message-cache';
import { ProjectedSessions } from '../read-models/sessions/projected-sessions';
import { SessionQueriesService } from './session-queries.service';
import { SessionStatsController } from './session-stats.controller';

/** The read side of the HTTP API: history, stats and blocks from the read model. */
@Module({
  imports: [ReadModelModule, ProjectorModule],
  controllers: [HistoryController, SessionStatsController],
  providers: [SessionQueriesService, ProjectedSessions, MessageCache, BlockCache],
  exports: [ProjectedSessions, MessageCache, BlockCache],
})
export class QueriesModule {}
