import 'reflect-metadata';
import { bootstrapService } from '@ctxledger/platform';
import { AppModule } from './app.module';

bootstrapService(AppModule, 'summarizer-service').catch((error: unknown) => {
  console.error(`summarizer-service failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
