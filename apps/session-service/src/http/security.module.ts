import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { SERVICE_ENV } from '@ctxledger/platform';
import type { SessionServiceEnv } from '../config/session-service.env';
import { AuthGuard } from './auth.guard';
import { TenantThrottlerGuard } from './tenant-throttler.guard';

/**
 * Authentication (API keys → tenant) and the per-tenant rate limit, on every route but /health and
 * /metrics. The guards run in this order: authenticate, then count the request against its tenant.
 * The limit is counted in this instance's memory: with N instances a tenant gets up to N times it.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [SERVICE_ENV],
      useFactory: (env: SessionServiceEnv): ThrottlerModuleOptions => {
        const limit = env.RATE_LIMIT_REQUESTS;
        return {
          throttlers: [{ name: 'default', limit, ttl: env.RATE_LIMIT_WINDOW_MS }],
          skipIf: () => limit === 0,
        };
      },
    }),
  ],
  providers: [
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: TenantThrottlerGuard },
  ],
})
export class SecurityModule {}
