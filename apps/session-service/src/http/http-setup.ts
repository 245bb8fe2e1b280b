import { BadRequestException, ValidationPipe, type INestApplication, type ValidationPipeOptions } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { flattenViolations } from '@ctxledger/contracts';
import { refuseDeepJson } from './json-depth';

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
  const config = app.get(ConfigService);
  const express = app as NestExpressApplication;
  express.useBodyParser('json', {
    limit: config.getOrThrow<number>('HTTP_BODY_LIMIT_BYTES'),
    verify: refuseDeepJson(), // 400 before the validation's recursive walk could overflow the stack
  });
  app.useGlobalPipes(new ValidationPipe(VALIDATION_OPTIONS));
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Context Ledger — session service')
      .setDescription(
        'Append messages of an agent session, read its effective history (compacted to fit the model), stats, blocks, ' +
          'manual compaction, overflow reports and reverts. Writes are events on Kafka (202 Accepted); reads come from the ' +
          'read model — pass the `waitToken` of a write as `after` to read your own writes.',
      )
      .setVersion('1')
      .build(),
  );
  SwaggerModule.setup('v1/docs', app, document, { jsonDocumentUrl: 'v1/docs-json' });
}
