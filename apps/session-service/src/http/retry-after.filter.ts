import type { ServerResponse } from 'node:http';
import { Catch, ServiceUnavailableException, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { BaseRpcExceptionFilter } from '@nestjs/microservices';

/**
 * A 503 whose body says when to retry (`retryAfterSeconds`, e.g. a write whose outcome is unknown) carries it as
 * the `Retry-After` header too, the header HTTP clients and proxies read. The projector's records (an `rpc`
 * context) keep Nest's default handling.
 */
@Catch(ServiceUnavailableException)
export class RetryAfterFilter extends BaseExceptionFilter {
  private readonly rpc = new BaseRpcExceptionFilter();

  override catch(exception: ServiceUnavailableException, host: ArgumentsHost): unknown {
    if (host.getType() !== 'http') return this.rpc.catch(exception, host);
    const body = exception.getResponse() as { retryAfterSeconds?: unknown };
    const res = host.switchToHttp().getResponse<ServerResponse>();
    if (typeof body === 'object' && typeof body.retryAfterSeconds === 'number' && !res.headersSent) {
      res.setHeader('Retry-After', String(body.retryAfterSeconds));
    }
    return super.catch(exception, host);
  }
}
