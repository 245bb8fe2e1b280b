import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { ClassConstructor } from 'class-transformer';
import { KafkaModule } from '@ctxledger/kafka';
import { ObservabilityModule } from '@ctxledger/observability';
import { PersistenceModule } from '@ctxledger/persistence';
import type { BaseServiceEnv } from './config/base-env';
import { serviceConfigModule } from './config/service-env';
import { HealthController } from './health/health.controller';
import { MongoPingIndicator } from './health/mongo-ping.indicator';

export interface PlatformOptions<E extends BaseServiceEnv> {
  /** Used as Kafka client id, Mongo app name and the `service` label of every metric. */
  readonly serviceName: string;
  /** The app's environment class (extends BaseServiceEnv), validated at boot with the Kafka and MongoDB variables. */
  readonly env: ClassConstructor<E>;
  /** Another database than MONGODB_URI's (the projection rebuild writes into one of its own). */
  readonly database?: string;
}

/**
 * What every service has: validated config (its own, Kafka's and MongoDB's variables, each injected as a typed
 * object: SERVICE_ENV, kafkaEnv.KEY, mongoEnv.KEY), Kafka, MongoDB, `GET /health` and `GET /metrics`.
 * An app module imports `PlatformModule.forService(...)` and adds its own use cases.
 */
@Module({})
export class PlatformModule {
  static forService<E extends BaseServiceEnv>(options: PlatformOptions<E>): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        serviceConfigModule(options.env),
        KafkaModule.forService(options.serviceName),
        PersistenceModule.forService({ appName: options.serviceName, database: options.database }),
        TerminusModule.forRoot({ errorLogStyle: 'pretty', gracefulShutdownTimeoutMs: 0 }),
        ObservabilityModule.forService(options.serviceName),
      ],
      controllers: [HealthController],
      providers: [MongoPingIndicator],
    };
  }
}
