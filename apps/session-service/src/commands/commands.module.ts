import { Module } from '@nestjs/common';
import { ProjectorModule } from '../projector/projector.module';
import { QueriesModule } from '../queries/queries.module';
import { ReadModelModule } from '../read-models/read-model.module';
import { CompactionCommandsController } from './compaction-commands.controller';
import { IDEMPOTENCY_KEYS } from './idempotency-keys';
import { KafkaSessionEventPublisher } from './kafka-session-event-publisher';
import { MessagesController } from './messages.controller';
import { SessionCommandsService } from './session-commands.service';
import { SessionConfigController } from './session-config.controller';
import { MongoIdempotencyKeys } from './mongo-idempotency-keys';
import { SESSION_EVENT_PUBLISHER } from './session-event-publisher';

/** The write side of the HTTP API: requests become session-stream events (sessions looked up as the read side does). */
@Module({
  imports: [ReadModelModule, ProjectorModule, QueriesModule],
  controllers: [MessagesController, SessionConfigController, CompactionCommandsController],
  providers: [
    SessionCommandsService,
    { provide: SESSION_EVENT_PUBLISHER, useClass: KafkaSessionEventPublisher },
    { provide: IDEMPOTENCY_KEYS, useClass: MongoIdempotencyKeys },
  ],
})
export class CommandsModule {}
