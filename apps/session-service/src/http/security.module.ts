import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
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
      inject: [ConfigService],
      useFactory: (config: ConfigService): ThrottlerModuleOptions => {
        const limit = config.getOrThrow<number>('RATE_LIMIT_REQUESTS');
        return {
          throttlers: [{ name: 'default', limit, ttl: config.getOrThrow<number>('RATE_LIMIT_WINDOW_MS') }],
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
