import 'reflect-metadata';
import { bootstrapService } from '@ctxledger/platform';
import { AppModule } from './app.module';

bootstrapService(AppModule, 'compaction-service').catch((error: unknown) => {
  console.error(`compaction-service failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
