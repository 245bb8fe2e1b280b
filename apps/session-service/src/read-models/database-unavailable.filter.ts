import { Catch, ServiceUnavailableException, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { BaseRpcExceptionFilter } from '@nestjs/microservices';
import { mongo } from 'mongoose';

/** The driver's errors that mean "MongoDB cannot be reached now", not "this request is wrong". */
export function isDatabaseUnavailable(error: unknown): boolean {
  return (
    error instanceof mongo.MongoNetworkError ||
    error instanceof mongo.MongoServerSelectionError ||
    error instanceof mongo.MongoNotConnectedError ||
    error instanceof mongo.MongoTopologyClosedError
  );
}

/**
 * HTTP: a read or a command that needs the read model while MongoDB is unreachable answers 503 (retry later),
 * as an append does while Kafka is; it used to be a 500 (found by the fault test that stops the MongoDB-wire
 * server). Other errors, and the projector's records (an `rpc` context: the transport retries them), keep
 * Nest's default handling.
 */
@Catch(mongo.MongoError)
export class DatabaseUnavailableFilter extends BaseExceptionFilter {
  private readonly rpc = new BaseRpcExceptionFilter();

  override catch(exception: unknown, host: ArgumentsHost): unknown {
    if (host.getType() !== 'http') return this.rpc.catch(exception, host);
    if (isDatabaseUnavailable(exception)) {
      return super.catch(
        new ServiceUnavailableException('MongoDB is unavailable: the read model cannot be read now. Retry'),
        host,
      );
    }
    return super.catch(exception, host);
  }
}
