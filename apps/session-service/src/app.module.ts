import { Module } from '@nestjs/common';
import { PlatformModule } from '@ctxledger/platform';
import { SessionServiceEnv } from './config/session-service.env';

/** HTTP API: appends messages to Kafka and serves the effective history from MongoDB. */
@Module({
  imports: [PlatformModule.forService({ serviceName: 'session-service', env: SessionServiceEnv })],
})
export class AppModule {}
