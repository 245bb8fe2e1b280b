import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { KAFKA_CLIENT, KAFKA_SETTINGS, KafkaEventTransport, type KafkaSettings } from '@ctxledger/kafka';
import { bootstrapService, SERVICE_ENV } from '@ctxledger/platform';
import { AppModule } from './app.module';
import type { SummarizerServiceEnv } from './config/summarizer-service.env';
import { describeProviders, type SummarizerSettings } from './config/summarizer-settings';
import { SUMMARIZER_SETTINGS } from './summarization/summarization.tokens';
import { ConsumerMetrics } from '@ctxledger/observability';

bootstrapService(AppModule, 'summarizer-service', {
  microservice: (app) => {
    const kafka = app.get<KafkaSettings>(KAFKA_SETTINGS);
    const env = app.get<SummarizerServiceEnv>(SERVICE_ENV);
    const settings = app.get<SummarizerSettings>(SUMMARIZER_SETTINGS);
    new Logger('Summarizer').log(describeProviders(settings));
    return new KafkaEventTransport({
      kafka: app.get(KAFKA_CLIENT),
      topics: kafka.topics,
      streams: ['summaryRequests'],
      groupId: env.SUMMARIZER_GROUP_ID ?? `${kafka.topicPrefix}.summarizer`,
      consumerName: 'summarizer-service',
      partitionsConsumedConcurrently: env.SUMMARIZER_PARTITIONS_CONCURRENTLY,
      onOutcome: app.get(ConsumerMetrics).record,
      onLagProbe: app.get(ConsumerMetrics).watchLag,
    });
  },
}).catch((error: unknown) => {
  console.error(`summarizer-service failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
