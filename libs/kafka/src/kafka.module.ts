import { Global, Inject, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TerminusModule } from '@nestjs/terminus';
import { Kafka, logLevel } from 'kafkajs';
import { allTopics } from '@ctxledger/contracts';
import { EventProducer } from './event-producer';
import { KafkaHealthIndicator } from './kafka-health.indicator';
import { nestKafkaLogCreator } from './kafka-logger';
import {
  describeKafkaSecurity,
  kafkaClientConfig,
  kafkaSettings,
  type KafkaSecurityInput,
  type KafkaSettings,
} from './kafka-settings';
import { KAFKA_CLIENT, KAFKA_SETTINGS } from './kafka.tokens';
import { ensureTopics } from './topic-admin';

/** The environment variables of the Kafka client's TLS and SASL settings. */
const SECURITY_VARIABLES: readonly (keyof KafkaSecurityInput)[] = [
  'KAFKA_SSL',
  'KAFKA_SSL_CA_FILE',
  'KAFKA_SSL_CA',
  'KAFKA_SSL_CERT_FILE',
  'KAFKA_SSL_CERT',
  'KAFKA_SSL_KEY_FILE',
  'KAFKA_SSL_KEY',
  'KAFKA_SSL_KEY_PASSPHRASE',
  'KAFKA_SSL_REJECT_UNAUTHORIZED',
  'KAFKA_SASL_MECHANISM',
  'KAFKA_SASL_USERNAME',
  'KAFKA_SASL_PASSWORD',
];

/** The Kafka settings of a service from its validated config. */
export function kafkaSettingsFromConfig(config: ConfigService): KafkaSettings {
  const security = Object.fromEntries(
    SECURITY_VARIABLES.map((name) => [name, config.get<unknown>(name)]).filter(([, v]) => v !== undefined),
  ) as KafkaSecurityInput;
  return kafkaSettings({
    brokers: config.getOrThrow<string[]>('KAFKA_BROKERS'),
    clientId: config.getOrThrow<string>('SERVICE_NAME'),
    topicPrefix: config.getOrThrow<string>('TOPIC_PREFIX'),
    security,
  });
}

/**
 * The one place that builds the kafkajs client. Reads KAFKA_BROKERS, TOPIC_PREFIX, the TLS and SASL
 * variables and the service name (SERVICE_NAME, set by the platform module) from the validated config.
 */
@Global()
@Module({
  imports: [TerminusModule],
  providers: [
    {
      provide: KAFKA_SETTINGS,
      inject: [ConfigService],
      useFactory: kafkaSettingsFromConfig,
    },
    {
      provide: KAFKA_CLIENT,
      inject: [KAFKA_SETTINGS],
      useFactory: (settings: KafkaSettings) =>
        new Kafka({
          ...kafkaClientConfig(settings),
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
    this.logger.log(`Kafka ${this.settings.brokers.join(',')}: ${describeKafkaSecurity(this.settings)}`);
    const created = await ensureTopics(this.kafka, allTopics(this.settings.topicPrefix));
    if (created.length > 0) this.logger.log(`created topics: ${created.join(', ')}`);
  }
}
