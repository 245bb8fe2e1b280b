import { BadRequestException, ValidationPipe, type INestApplication, type ValidationPipeOptions } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { flattenViolations } from '@ctxledger/contracts';
import { SERVICE_ENV } from '@ctxledger/platform';
import type { SessionServiceEnv } from '../config/session-service.env';
import { requireJsonBodies, verifyJsonBody } from './json-body';

/**
 * Every HTTP body and query is validated like this: unknown fields refused, 400 with one `path: reason`
 * per violation (`messages.1.content: must be a string`), the same shape as the dead-letter reasons.
 */
export const VALIDATION_OPTIONS: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  transform: true,
  exceptionFactory: (errors) => new BadRequestException(flattenViolations(errors)),
};

/** Body-size limit, validation, and the OpenAPI document at /v1/docs (JSON at /v1/docs-json). */
export function configureHttp(app: INestApplication): void {
  const env = app.get<SessionServiceEnv>(SERVICE_ENV);
  const express = app as NestExpressApplication;
  express.use(requireJsonBodies()); // 415 for a body of another type
  express.useBodyParser('json', {
    limit: env.HTTP_BODY_LIMIT_BYTES,
    // 400 for a body nested too deep (before the validation's recursive walk could overflow the stack) or not UTF-8
    verify: verifyJsonBody(),
  });
  app.useGlobalPipes(new ValidationPipe(VALIDATION_OPTIONS));
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Context Ledger — session service')
      .setDescription(
        'Append messages of an agent session, read its effective history (compacted to fit the model), stats, blocks, ' +
          'manual compaction, overflow reports and reverts. Writes are events on Kafka (202 Accepted); reads come from the ' +
          'read model — pass the `waitToken` of a write as `after` to read your own writes.\n\n' +
          '**Authentication**: every call under /v1/sessions needs an API key, as `Authorization: Bearer <key>` or ' +
          '`X-Api-Key: <key>` (401 without one or with a wrong one). Each key belongs to one tenant (API_KEYS); a tenant ' +
          "never sees another tenant's sessions (404). Only when the service runs with AUTH_MODE=none (local development) " +
          'is the tenant taken from the `X-Tenant` header instead.\n\n' +
          '**Rate limit**: RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_MS per tenant; over it, 429 with `Retry-After` ' +
          '(seconds). `GET /health` and `GET /metrics` need no key and are not limited.\n\n' +
          '**Bodies**: JSON sent as `Content-Type: application/json` (415 otherwise), in valid UTF-8 (400 naming the ' +
          'field otherwise: nothing is stored altered).\n\n' +
          '**Retrying writes**: send every append with an `Idempotency-Key` (or a `clientMessageId` on every message). ' +
          'A 503 with `outcome: "unknown"` means Kafka did not acknowledge the write: it may have been appended or not. ' +
          'Retry the same body with the key the answer names (`idempotencyKey`) after `Retry-After`, until 202: every ' +
          'message is then stored exactly once. The same key with another body is 409.',
      )
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key of a tenant (API_KEYS)' }, 'bearer')
      .addApiKey(
        { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'The same API key, another header' },
        'api-key',
      )
      .build(),
  );
  SwaggerModule.setup('v1/docs', app, document, { jsonDocumentUrl: 'v1/docs-json' });
}
