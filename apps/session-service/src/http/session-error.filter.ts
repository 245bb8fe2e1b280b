import type { ServerResponse } from 'node:http';
import {
  BadRequestException,
  Catch,
  ConflictException,
  GatewayTimeoutException,
  HttpException,
  NotFoundException,
  PayloadTooLargeException,
  ServiceUnavailableException,
  UnprocessableEntityException,
  type ArgumentsHost,
} from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { BaseRpcExceptionFilter } from '@nestjs/microservices';
import { mongo } from 'mongoose';
import {
  IdempotencyConflictError,
  InvalidRequestError,
  NotFoundError,
  OutcomeUnknownError,
  ReadTimeoutError,
  SessionError,
  TooLargeError,
  UnavailableError,
  UnprocessableError,
} from '../session-errors';

/** The driver's errors that mean "MongoDB cannot be reached now", not "this request is wrong". */
export function isDatabaseUnavailable(error: unknown): boolean {
  return (
    error instanceof mongo.MongoNetworkError ||
    error instanceof mongo.MongoServerSelectionError ||
    error instanceof mongo.MongoNotConnectedError ||
    error instanceof mongo.MongoTopologyClosedError
  );
}

/** The HTTP answer of a domain error (status and body as Nest's exceptions write them). */
export function httpExceptionOf(error: SessionError): HttpException {
  if (error instanceof InvalidRequestError) return new BadRequestException([...error.violations]);
  if (error instanceof NotFoundError) return new NotFoundException(error.message);
  if (error instanceof TooLargeError) return new PayloadTooLargeException(error.message);
  if (error instanceof UnprocessableError) {
    return new UnprocessableEntityException({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: error.message,
      ...error.details,
    });
  }
  if (error instanceof IdempotencyConflictError) {
    return new ConflictException({
      statusCode: 409,
      error: 'Conflict',
      message: error.message,
      idempotencyKey: error.idempotencyKey,
    });
  }
  if (error instanceof OutcomeUnknownError) {
    return new ServiceUnavailableException({
      statusCode: 503,
      error: 'Service Unavailable',
      outcome: 'unknown',
      message: error.message,
      idempotencyKey: error.idempotencyKey,
      retryAfterSeconds: error.retryAfterSeconds,
    });
  }
  if (error instanceof UnavailableError) {
    return new ServiceUnavailableException(
      error.retryAfterSeconds === undefined
        ? error.message
        : {
            statusCode: 503,
            error: 'Service Unavailable',
            message: error.message,
            retryAfterSeconds: error.retryAfterSeconds,
          },
    );
  }
  if (error instanceof ReadTimeoutError) return new GatewayTimeoutException(error.message);
  throw new Error(`no HTTP answer for ${error.name}`, { cause: error });
}

/**
 * The one exception filter of the HTTP API:
 * - the use cases' domain errors (session-errors.ts) → their status and body;
 * - MongoDB unreachable (a read or a command that needs the read model) → 503, retry later, as an append does
 *   while Kafka is (it used to be a 500: found by the fault test that stops the MongoDB-wire server);
 * - a 503 whose body says when to retry (`retryAfterSeconds`, e.g. a write whose outcome is unknown) carries it
 *   as the `Retry-After` header too, the header HTTP clients and proxies read.
 * Other errors keep Nest's default handling, and so do the projector's records (an `rpc` context: the transport
 * retries them).
 */
@Catch(SessionError, mongo.MongoError, ServiceUnavailableException)
export class SessionErrorFilter extends BaseExceptionFilter {
  private readonly rpc = new BaseRpcExceptionFilter();

  override catch(exception: unknown, host: ArgumentsHost): unknown {
    if (host.getType() !== 'http') return this.rpc.catch(exception, host);
    const answer =
      exception instanceof SessionError
        ? httpExceptionOf(exception)
        : isDatabaseUnavailable(exception)
          ? new ServiceUnavailableException('MongoDB is unavailable: the read model cannot be read now. Retry')
          : exception;
    if (answer instanceof ServiceUnavailableException) {
      const body = answer.getResponse() as { retryAfterSeconds?: unknown };
      const res = host.switchToHttp().getResponse<ServerResponse>();
      if (typeof body === 'object' && typeof body.retryAfterSeconds === 'number' && !res.headersSent) {
        res.setHeader('Retry-After', String(body.retryAfterSeconds));
      }
    }
    return super.catch(answer, host);
  }
}
