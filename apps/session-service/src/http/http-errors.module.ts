import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { SessionErrorFilter } from './session-error.filter';

/** The HTTP answers of the use cases' errors (one filter for the whole API). */
@Module({ providers: [{ provide: APP_FILTER, useClass: SessionErrorFilter }] })
export class HttpErrorsModule {}
