import { Module } from '@nestjs/common';
import { PlatformModule } from '@ctxledger/platform';
import { CommandsModule } from './commands/commands.module';
import { SessionServiceEnv } from './config/session-service.env';
import { ProjectorModule } from './projector/projector.module';
import { QueriesModule } from './queries/queries.module';

export const SESSION_SERVICE = 'session-service';

/** HTTP API (appends to Kafka, serves the effective history) and the projector that owns the read model. */
@Module({
  imports: [
    PlatformModule.forService({ serviceName: SESSION_SERVICE, env: SessionServiceEnv }),
    ProjectorModule,
    CommandsModule,
    QueriesModule,
  ],
})
export class AppModule {}

/** The projector alone (the rebuild command): no HTTP use case, no producer of session events. */
@Module({
  imports: [PlatformModule.forService({ serviceName: SESSION_SERVICE, env: SessionServiceEnv }), ProjectorModule],
})
export class ProjectorOnlyModule {}
