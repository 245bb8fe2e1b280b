import { BadRequestException, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { applyDecorators } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { DEFAULT_TENANT, ID_PATTERN, LIMITS } from '@ctxledger/contracts';

export const TENANT_HEADER = 'x-tenant';

/**
 * The caller's tenant, from the `X-Tenant` header (default `default`). Real authentication comes later and
 * will set it; a tenant never sees another tenant's sessions (they answer 404).
 */
export const Tenant = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const raw = ctx.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>().headers[
    TENANT_HEADER
  ];
  const tenant = Array.isArray(raw) ? raw[0] : raw;
  if (tenant === undefined || tenant === '') return DEFAULT_TENANT;
  if (tenant.length > LIMITS.maxIdLength || !ID_PATTERN.test(tenant)) {
    throw new BadRequestException(['X-Tenant: may contain only letters, digits and _:@- (at most 200)']);
  }
  return tenant;
});

/** Documents the tenant header on a controller. */
export const ApiTenant = () =>
  applyDecorators(
    ApiHeader({ name: 'X-Tenant', required: false, description: 'Tenant of the session (default `default`)' }),
  );
