import { applyDecorators, createParamDecorator, UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiHeader,
  ApiSecurity,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { AuthenticatedRequest } from './auth.guard';

export { TENANT_HEADER } from './auth.guard';

/**
 * The caller's tenant, as the AuthGuard decided it (the API key's tenant, or `X-Tenant` when
 * authentication is off). A tenant never sees another tenant's sessions (they answer 404).
 */
export const Tenant = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const tenant = ctx.switchToHttp().getRequest<AuthenticatedRequest>().ctxledgerTenant;
  // Fail closed: a route the guard did not see has no tenant.
  if (tenant === undefined) throw new UnauthorizedException('not authenticated');
  return tenant;
});

/** Documents, on a controller, how a call is authenticated and what it answers when it is not. */
export const ApiTenant = () =>
  applyDecorators(
    ApiBearerAuth('bearer'),
    ApiSecurity('api-key'),
    ApiHeader({
      name: 'X-Tenant',
      required: false,
      description:
        'Only when authentication is off (AUTH_MODE=none, local development): the tenant of the session ' +
        "(default `default`). With an API key the tenant is the key's; an X-Tenant naming another one is 403.",
    }),
    ApiUnauthorizedResponse({ description: 'No API key, or not a valid one' }),
    ApiForbiddenResponse({ description: "X-Tenant names another tenant than the API key's" }),
    ApiTooManyRequestsResponse({
      description: 'The tenant is over its rate limit (RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_MS); see Retry-After',
    }),
  );
