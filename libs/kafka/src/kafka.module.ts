import { Global, Inject, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TerminusModule } from '@nestjs/terminus';
import { Kafka, logLevel } from 'kafkajs';
import { allTopics } from '@ctxledger/contracts';
import { EventProducer } from './event-producer';
import { KafkaHealthIndicator } from './kafka-health.indicator';
import { nestKafkaLogCreator } from './kafka-logger';
import { kafkaSettings, type KafkaSettings } from './kafka-settings';
import { KAFKA_CLIENT, KAFKA_SETTINGS } from './kafka.tokens';
import { ensureTopics } from './topic-admin';

/**
 * The one place that builds the kafkajs client. Reads KAFKA_BROKERS, TOPIC_PREFIX and the service name
 * (SERVICE_NAME, set by the platform module) from the validated config.
 */
@Global()
@Module({
  imports: [TerminusModule],
  providers: [
    {
      provide: KAFKA_SETTINGS,
      inject: [ConfigService],
      useFactory: (config: ConfigService): KafkaSettings =>
        kafkaSettings({
          brokers: config.getOrThrow<string[]>('KAFKA_BROKERS'),
          clientId: config.getOrThrow<string>('SERVICE_NAME'),
          topicPrefix: config.getOrThrow<string>('TOPIC_PREFIX'),
        }),
    },
    {
      provide: KAFKA_CLIENT,
      inject: [KAFKA_SETTINGS],
      useFactory: (settings: KafkaSettings) =>
        new Kafka({
          clientId: settings.clientId,
          brokers: [...settings.brokers],
          logLevel: logLevel.WARN,
          logCreator: nestKafkaLogCreator,
          retry: { initialRetryTime: 200, retries: 8 },
        }),
    },
    KafkaHealthIndicator,
    EventProducer,
  ],
  exports: [KAFKA_CLIENT, KAFKA_SETTINGS, KafkaHealthIndicator, EventProducer],
})
export class KafkaModule implements OnApplicationBootstrap {
  private readonly logger = new Logger(KafkaModule.name);

  constructor(
    @Inject(KAFKA_CLIENT) private readonly kafka: Kafka,
    @Inject(KAFKA_SETTINGS) private readonly settings: KafkaSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const created = await ensureTopics(this.kafka, allTopics(this.settings.topicPrefix));
    if (created.length > 0) this.logger.log(`created topics: ${created.join(', ')}`);
  }
}
