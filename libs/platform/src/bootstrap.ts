import type { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { CustomTransportStrategy } from '@nestjs/microservices';
import { SERVICE_ENV, type BaseServiceEnv } from './config/base-env';
import { answerClientErrors } from './http/client-error';
import { correlationMiddleware, CorrelationInterceptor } from './logging/http-correlation';
import { ServiceLogger } from './logging/service-logger';

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
  // JSON lines with the correlation id of the request or record being handled (logging/service-logger.ts).
  const logger = ServiceLogger.fromEnv(serviceName);
  const app = await NestFactory.create(appModule, { logger, bufferLogs: true });
  // First in the chain: every request gets its correlation id (echoed), every line logged for it carries it.
  app.use(correlationMiddleware());
  app.useGlobalInterceptors(new CorrelationInterceptor());
  app.enableShutdownHooks();
  const { PORT: port, HOST: host } = app.get<BaseServiceEnv>(SERVICE_ENV);
  await options.configure?.(app);
  if (options.microservice) {
    // Init first: topics ensured and producers connected before the first record is handled.
    await app.init();
    app.connectMicroservice({ strategy: options.microservice(app) }, { inheritAppConfig: true });
    await app.startAllMicroservices();
  }
  // Requests the HTTP parser refuses (431, 400, 408) are answered so that a client still sending reads it.
  answerClientErrors(app.getHttpServer());
  await app.listen(port, host);
  logger.log(`${serviceName} listening on ${await app.getUrl()}`);
  return app;
}
