import 'reflect-metadata';
import { bootstrapService } from '@ctxledger/platform';
import { AppModule, SESSION_SERVICE } from './app.module';
import { configureHttp } from './http/http-setup';
import { projectorTransport } from './projector/projector-transport';
import { parseRebuildArgs, rebuildProjections } from './rebuild/rebuild-projections';

const [command, ...args] = process.argv.slice(2);

if (command === 'rebuild-projections') {
  // `node dist/apps/session-service/main.js rebuild-projections --database <name>`
  Promise.resolve()
    .then(() => rebuildProjections(parseRebuildArgs(args)))
    .then(() => process.exit(0))
    .catch((error: unknown) => {
      console.error(`rebuild-projections failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    });
} else {
  bootstrapService(AppModule, SESSION_SERVICE, {
    configure: configureHttp,
    microservice: (app) => projectorTransport(app),
  }).catch((error: unknown) => {
    console.error(`${SESSION_SERVICE} failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
