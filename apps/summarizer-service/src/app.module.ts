import { Module } from '@nestjs/common';
import { PlatformModule } from '@ctxledger/platform';
import { SummarizerServiceEnv } from './config/summarizer-service.env';
import { SummaryRequestsModule } from './summary-requests/summary-requests.module';

/** Consumes summary requests and answers them with an LLM or the offline summarizer. */
@Module({
  imports: [
    PlatformModule.forService({ serviceName: 'summarizer-service', env: SummarizerServiceEnv }),
    SummaryRequestsModule,
  ],
})
export class AppModule {}
