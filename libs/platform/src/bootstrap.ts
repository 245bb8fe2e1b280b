import { ConsoleLogger, type INestApplication, type Type } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import type { CustomTransportStrategy } from '@nestjs/microservices';

export interface BootstrapOptions {
  /**
   * For hybrid apps: builds the Kafka transport (e.g. a KafkaEventTransport) from the app's providers; it is
   * connected and started before the HTTP server listens, and closed on shutdown.
   */
  readonly microservice?: (app: INestApplication) => CustomTransportStrategy;
  /** Configures the HTTP app (pipes, body parsers, OpenAPI…) before its microservice starts and it listens. */
  readonly configure?: (app: INestApplication) => void | Promise<void>;
}

/**
 * Creates the service's HTTP app with JSON or text logs and shutdown hooks, starts its microservice if it
 * has one, and listens on HOST:PORT.
 */
export async function bootstrapService(
  appModule: Type<unknown>,
  serviceName: string,
  options: BootstrapOptions = {},
): Promise<INestApplication> {
  const logger = new ConsoleLogger(serviceName, {
    json: process.env.LOG_FORMAT === 'json',
    logLevels: logLevelsFrom(process.env.LOG_LEVEL),
  });
  const app = await NestFactory.create(appModule, { logger, bufferLogs: true });
  app.enableShutdownHooks();
  const config = app.get(ConfigService);
  const port = config.getOrThrow<number>('PORT');
  const host = config.getOrThrow<string>('HOST');
  await options.configure?.(app);
  if (options.microservice) {
    // Init first: topics ensured and producers connected before the first record is handled.
    await app.init();
    app.connectMicroservice({ strategy: options.microservice(app) }, { inheritAppConfig: true });
    await app.startAllMicroservices();
  }
  await app.listen(port, host);
  logger.log(`${serviceName} listening on ${await app.getUrl()}`);
  return app;
}

const LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
function logLevelsFrom(level: string | undefined) {
  const index = LEVELS.indexOf((level ?? 'log') as (typeof LEVELS)[number]);
  return LEVELS.slice(0, index < 0 ? 3 : index + 1);
}
