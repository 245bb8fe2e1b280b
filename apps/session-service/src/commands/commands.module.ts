import { Module } from '@nestjs/common';
import { ProjectorModule } from '../projector/projector.module';
import { ReadModelModule } from '../read-models/read-model.module';
import { CompactionCommandsController } from './compaction-commands.controller';
import { MessagesController } from './messages.controller';
import { SessionCommandsService } from './session-commands.service';
import { SessionConfigController } from './session-config.controller';
import { SessionEventPublisher } from './session-event-publisher';

/** The write side of the HTTP API: requests become session-stream events. */
@Module({
  imports: [ReadModelModule, ProjectorModule],
  controllers: [MessagesController, SessionConfigController, CompactionCommandsController],
  providers: [SessionCommandsService, SessionEventPublisher],
})
export class CommandsModule {}
