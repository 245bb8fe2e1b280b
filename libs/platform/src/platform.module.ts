import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TerminusModule } from '@nestjs/terminus';
import type { ClassConstructor } from 'class-transformer';
import { KafkaModule } from '@ctxledger/kafka';
import { ObservabilityModule } from '@ctxledger/observability';
import { PersistenceModule } from '@ctxledger/persistence';
import { validateEnv } from './config/validate-env';
import type { BaseServiceEnv } from './config/base-env';
import { HealthController } from './health/health.controller';
import { MongoPingIndicator } from './health/mongo-ping.indicator';

export interface PlatformOptions<E extends BaseServiceEnv> {
  /** Used as Kafka client id, Mongo app name and the `service` label of every metric. */
  readonly serviceName: string;
  /** The app's environment class (extends BaseServiceEnv), validated at boot. */
  readonly env: ClassConstructor<E>;
}

/**
 * What every service has: validated config, Kafka, MongoDB, `GET /health` and `GET /metrics`.
 * An app module imports `PlatformModule.forService(...)` and adds its own use cases.
 */
@Module({})
export class PlatformModule {
  static forService<E extends BaseServiceEnv>(options: PlatformOptions<E>): DynamicModule {
    const validate = validateEnv(options.env);
    return {
      module: PlatformModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          cache: true,
          validate: (raw) => ({ ...validate(raw), SERVICE_NAME: options.serviceName }),
        }),
        KafkaModule,
        PersistenceModule,
        TerminusModule.forRoot({ errorLogStyle: 'pretty', gracefulShutdownTimeoutMs: 0 }),
        ObservabilityModule.forService(options.serviceName),
      ],
      controllers: [HealthController],
      providers: [MongoPingIndicator],
    };
  }
}
