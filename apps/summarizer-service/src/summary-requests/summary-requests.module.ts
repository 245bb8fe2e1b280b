import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { SERVICE_ENV } from '@ctxledger/platform';
import type { LlmProviderName, SummarizerServiceEnv } from '../config/summarizer-service.env';
import { secretsOf, summarizerSettings, type SummarizerSettings } from '../config/summarizer-settings';
import { createLlmClient } from '../providers/llm-clients';
import type { LlmClient } from '../providers/llm-client';
import { redactSecrets } from '../summarization/redact';
import { SUMMARIZER_SETTINGS } from '../summarization/summarization.tokens';
import { Summarizer } from '../summarization/summarizer';
import { SummarizerMetrics } from '../summarization/summarizer.metrics';
import { MongoSummaryStore } from './mongo-summary-store';
import { KafkaResultPublisher, RESULT_PUBLISHER } from './result-publisher';
import { SummaryRequestsHandler } from './summary-requests.handler';
import { SummaryRequestsService } from './summary-requests.service';
import { SUMMARY_STORE } from './summary-store';
import { summarizerTestHooks } from '../testing/test-hooks';

/** The composition root of the use case: settings from the validated environment, SDK clients, adapters. */
@Module({
  imports: [ConfigModule.forFeature(summarizerTestHooks)],
  controllers: [SummaryRequestsHandler],
  providers: [
    {
      provide: SUMMARIZER_SETTINGS,
      inject: [SERVICE_ENV],
      useFactory: (env: SummarizerServiceEnv) => summarizerSettings(env),
    },
    {
      provide: Summarizer,
      inject: [SUMMARIZER_SETTINGS, SummarizerMetrics],
      useFactory: (settings: SummarizerSettings, metrics: SummarizerMetrics) => {
        const clients: Partial<Record<LlmProviderName, LlmClient>> = {};
        for (const provider of Object.values(settings.providers)) {
          if (provider) clients[provider.provider] = createLlmClient(provider);
        }
        const secrets = secretsOf(settings);
        return new Summarizer({ settings, clients, observer: metrics, redact: (text) => redactSecrets(text, secrets) });
      },
    },
    SummarizerMetrics,
    SummaryRequestsService,
    { provide: SUMMARY_STORE, useClass: MongoSummaryStore },
    { provide: RESULT_PUBLISHER, useClass: KafkaResultPublisher },
  ],
  exports: [SummarizerMetrics, SUMMARIZER_SETTINGS],
})
export class SummaryRequestsModule {}
