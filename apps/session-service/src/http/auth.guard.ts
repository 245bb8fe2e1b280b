import {
  BadRequestException,
  ForbiddenException,
  Injectable,
  Logger,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
  type OnApplicationBootstrap,
  Inject,
} from '@nestjs/common';
import { DEFAULT_TENANT, ID_PATTERN, LIMITS } from '@ctxledger/contracts';
import { parseApiKeys, tenantOfKey, type ApiKeyEntry } from '../config/api-keys';
import { resolveAuthMode, type AuthMode } from '../config/auth-mode';
import { SERVICE_ENV } from '@ctxledger/platform';
import type { SessionServiceEnv } from '../config/session-service.env';
import { isPublicPath } from './public-routes';

export const TENANT_HEADER = 'x-tenant';
export const API_KEY_HEADER = 'x-api-key';

/** What the guard leaves on the request for the controllers and the rate limiter. */
export interface AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
  path?: string;
  ip?: string;
  ctxledgerTenant?: string;
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * Authenticates every API call (all routes but /health and /metrics) and decides its tenant.
 * With API keys: `Authorization: Bearer <key>` or `X-Api-Key: <key>`; the tenant is the key's, and an
 * `X-Tenant` naming another tenant is refused (403) — the header can no longer pick a tenant.
 * Without authentication (AUTH_MODE=none): the tenant is `X-Tenant` (default `default`).
 */
@Injectable()
export class AuthGuard implements CanActivate, OnApplicationBootstrap {
  private readonly logger = new Logger('Auth');
  readonly mode: AuthMode;
  private readonly implicit: boolean;
  private readonly keys: readonly ApiKeyEntry[];

  constructor(@Inject(SERVICE_ENV) env: SessionServiceEnv) {
    const auth = resolveAuthMode(env);
    if ('problem' in auth) throw new Error(auth.problem); // validated at boot already; never serve open by mistake
    this.mode = auth.mode;
    this.implicit = auth.implicit;
    this.keys = this.mode === 'api-key' ? parseApiKeys(env.API_KEYS ?? '').entries : [];
  }

  onApplicationBootstrap(): void {
    if (this.mode === 'none') {
      this.logger.warn(
        '!!! AUTHENTICATION IS OFF: any caller that reaches this port can read, write, compact and revert every ' +
          "tenant's sessions, choosing the tenant with the X-Tenant header. " +
          (this.implicit
            ? 'This is allowed only because no API keys are configured and HOST is a loopback address. '
            : '(AUTH_MODE=none) ') +
          'Set API_KEYS=<tenant>:<key>,… (or API_KEYS_FILE) for anything but local development. !!!',
      );
    } else {
      const tenants = new Set(this.keys.map((k) => k.tenant));
      this.logger.log(`API keys required: ${this.keys.length} key(s) for ${tenants.size} tenant(s)`);
    }
  }

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (isPublicPath(req.path)) return true;
    const header = first(req.headers[TENANT_HEADER]);
    if (this.mode === 'none') {
      if (header !== undefined && header !== '' && (header.length > LIMITS.maxIdLength || !ID_PATTERN.test(header))) {
        throw new BadRequestException(['X-Tenant: may contain only letters, digits and _:@- (at most 200)']);
      }
      req.ctxledgerTenant = header || DEFAULT_TENANT;
      return true;
    }
    const unauthorized = (message: string) => {
      // RFC 6750: a 401 says which scheme it wants.
      context
        .switchToHttp()
        .getResponse<{ setHeader(name: string, value: string): void }>()
        .setHeader('WWW-Authenticate', 'Bearer realm="context-ledger"');
      return new UnauthorizedException({ statusCode: 401, error: 'Unauthorized', message });
    };
    const key = presentedKey(req, unauthorized);
    if (key === undefined) {
      throw unauthorized('missing API key: send Authorization: Bearer <key> (or X-Api-Key: <key>)');
    }
    const tenant = tenantOfKey(this.keys, key);
    if (tenant === undefined) throw unauthorized('invalid API key');
    if (header !== undefined && header !== '' && header !== tenant) {
      throw new ForbiddenException({
        statusCode: 403,
        error: 'Forbidden',
        message: "X-Tenant names another tenant than the API key's: the key decides the tenant (omit X-Tenant)",
      });
    }
    req.ctxledgerTenant = tenant;
    return true;
  }
}

function presentedKey(
  req: AuthenticatedRequest,
  unauthorized: (message: string) => UnauthorizedException,
): string | undefined {
  const authorization = first(req.headers.authorization);
  if (authorization !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthorized('Authorization must be "Bearer <key>"');
    return match[1];
  }
  const key = first(req.headers[API_KEY_HEADER])?.trim();
  return key === '' ? undefined : key;
}
