import { HttpException, Injectable, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type { AuthenticatedRequest } from './auth.guard';
import { isPublicPath } from './public-routes';

/**
 * The rate limit, per tenant (the authenticated one; the client address only for a request without one),
 * over all routes together. /health and /metrics are never limited. Runs after the AuthGuard.
 */
@Injectable()
export class TenantThrottlerGuard extends ThrottlerGuard {
  protected override async getTracker(req: Record<string, any>): Promise<string> {
    const { ctxledgerTenant: tenant, ip } = req as AuthenticatedRequest;
    return tenant !== undefined ? `tenant:${tenant}` : `ip:${String(ip)}`;
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, throttler: string): string {
    return `${throttler}:${tracker}`; // one budget per tenant, not one per route
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return context.getType() !== 'http' || isPublicPath(context.switchToHttp().getRequest<AuthenticatedRequest>().path);
  }

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const who = req.ctxledgerTenant !== undefined ? `tenant ${req.ctxledgerTenant}` : 'this client';
    throw new HttpException(
      {
        statusCode: 429,
        error: 'Too Many Requests',
        message:
          `rate limit reached for ${who}: ${detail.limit} requests per ${detail.ttl / 1000} s; ` +
          `retry after ${detail.timeToBlockExpire} s`,
        retryAfterSeconds: detail.timeToBlockExpire,
      },
      429,
    );
  }
}
