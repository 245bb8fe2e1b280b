import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@ctxledger/platform';
import { CommandsModule } from './commands/commands.module';
import { SessionServiceEnv } from './config/session-service.env';
import { HttpErrorsModule } from './http/http-errors.module';
import { SecurityModule } from './http/security.module';
import { InspectorModule } from './inspector/inspector.module';
import { ProjectorModule } from './projector/projector.module';
import { QueriesModule } from './queries/queries.module';

export const SESSION_SERVICE = 'session-service';

/** HTTP API (appends to Kafka, serves the effective history) and the projector that owns the read model. */
@Module({
  imports: [
    PlatformModule.forService({ serviceName: SESSION_SERVICE, env: SessionServiceEnv }),
    SecurityModule,
    HttpErrorsModule,
    ProjectorModule,
    CommandsModule,
    QueriesModule,
    InspectorModule,
  ],
})
export class AppModule {}

/**
 * The projector alone (the rebuild command): no HTTP use case, no producer of session events, the read model in
 * `database` instead of MONGODB_URI's.
 */
@Module({})
export class ProjectorOnlyModule {
  static create(database: string): DynamicModule {
    return {
      module: ProjectorOnlyModule,
      imports: [
        PlatformModule.forService({ serviceName: SESSION_SERVICE, env: SessionServiceEnv, database }),
        ProjectorModule,
      ],
    };
  }
}
