import 'reflect-metadata';
import { ConfigService } from '@nestjs/config';
import { Logger } from '@nestjs/common';
import { KAFKA_CLIENT, KAFKA_SETTINGS, KafkaEventTransport, type KafkaSettings } from '@ctxledger/kafka';
import { bootstrapService } from '@ctxledger/platform';
import { AppModule } from './app.module';
import type { SummarizerSettings } from './config/summarizer-settings';
import { SUMMARIZER_SETTINGS } from './summarization/summarization.tokens';
import { ConsumerMetrics } from '@ctxledger/observability';

bootstrapService(AppModule, 'summarizer-service', {
  microservice: (app) => {
    const kafka = app.get<KafkaSettings>(KAFKA_SETTINGS);
    const config = app.get(ConfigService);
    const settings = app.get<SummarizerSettings>(SUMMARIZER_SETTINGS);
    // Providers and models only: keys are never logged.
    const llms = Object.values(settings.providers)
      .map(
        (p) =>
          `${p!.provider} (${p!.defaultModel}${p!.baseUrl ? ` at ${p!.baseUrl}` : ''}, ≤${p!.maxConcurrency} calls)`,
      )
      .join(', ');
    new Logger('Summarizer').log(
      `default provider ${settings.defaultProvider}; fallback ${settings.fallback}; LLM providers: ${llms || 'none (offline only)'}`,
    );
    return new KafkaEventTransport({
      kafka: app.get(KAFKA_CLIENT),
      topics: kafka.topics,
      streams: ['summaryRequests'],
      groupId: config.get<string>('SUMMARIZER_GROUP_ID') ?? `${kafka.topicPrefix}.summarizer`,
      consumerName: 'summarizer-service',
      partitionsConsumedConcurrently: config.getOrThrow<number>('SUMMARIZER_PARTITIONS_CONCURRENTLY'),
      onOutcome: app.get(ConsumerMetrics).record,
      onLagProbe: app.get(ConsumerMetrics).watchLag,
    });
  },
}).catch((error: unknown) => {
  console.error(`summarizer-service failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
