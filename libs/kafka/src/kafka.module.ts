import { Inject, Logger, Module, type DynamicModule, type OnApplicationBootstrap } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { Kafka, logLevel } from 'kafkajs';
import { allTopics } from '@ctxledger/contracts';
import { kafkaEnv, type KafkaEnv } from './config/kafka.env';
import { EventProducer } from './event-producer';
import { KafkaHealthIndicator } from './kafka-health.indicator';
import { fixKafkajsIdleLoop } from './kafkajs-idle-fix';
import { nestKafkaLogCreator } from './kafka-logger';
import { describeKafkaSecurity, kafkaClientConfig, kafkaSettings, type KafkaSettings } from './kafka-settings';
import { KAFKA_CLIENT, KAFKA_SETTINGS } from './kafka.tokens';
import { ensureTopics } from './topic-admin';

/** The Kafka settings of a service from its validated Kafka variables; `clientId` is the service's name. */
export function kafkaSettingsFromEnv(env: KafkaEnv, clientId: string): KafkaSettings {
  const { KAFKA_BROKERS, TOPIC_PREFIX, ...security } = env;
  return kafkaSettings({ brokers: KAFKA_BROKERS, clientId, topicPrefix: TOPIC_PREFIX, security });
}

/**
 * The one place that builds the kafkajs client, from the validated Kafka variables (KafkaEnv: KAFKA_BROKERS,
 * TOPIC_PREFIX, TLS and SASL) and the service's name (`forService`).
 */
@Module({})
export class KafkaModule implements OnApplicationBootstrap {
  private readonly logger = new Logger(KafkaModule.name);

  constructor(
    @Inject(KAFKA_CLIENT) private readonly kafka: Kafka,
    @Inject(KAFKA_SETTINGS) private readonly settings: KafkaSettings,
  ) {}

  /** Needs the `kafkaEnv` namespace of `@nestjs/config` (the platform composes it). */
  static forService(serviceName: string): DynamicModule {
    return {
      module: KafkaModule,
      global: true,
      imports: [TerminusModule],
      providers: [
        {
          provide: KAFKA_SETTINGS,
          inject: [kafkaEnv.KEY],
          useFactory: (env: KafkaEnv) => kafkaSettingsFromEnv(env, serviceName),
        },
        {
          provide: KAFKA_CLIENT,
          inject: [KAFKA_SETTINGS],
          useFactory: (settings: KafkaSettings) => {
            if (fixKafkajsIdleLoop() === 'other-version')
              new Logger(KafkaModule.name).warn('kafkajs is not 2.2.4: its idle-loop fix is not applied');
            return new Kafka({
              ...kafkaClientConfig(settings),
              logLevel: logLevel.WARN,
              logCreator: nestKafkaLogCreator,
              retry: { initialRetryTime: 200, retries: 8 },
            });
          },
        },
        KafkaHealthIndicator,
        EventProducer,
      ],
      exports: [KAFKA_CLIENT, KAFKA_SETTINGS, KafkaHealthIndicator, EventProducer],
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    this.logger.log(`Kafka ${this.settings.brokers.join(',')}: ${describeKafkaSecurity(this.settings)}`);
    const created = await ensureTopics(this.kafka, allTopics(this.settings.topicPrefix));
    if (created.length > 0) this.logger.log(`created topics: ${created.join(', ')}`);
  }
}
