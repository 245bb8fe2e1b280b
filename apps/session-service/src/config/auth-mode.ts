import { isSet } from '@ctxledger/config';

export type AuthMode = 'api-key' | 'none';

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost)$/;

/**
 * The authentication mode at boot:
 * - `AUTH_MODE=api-key` (or API keys configured and no AUTH_MODE): every API call needs a key; the tenant
 *   is the key's.
 * - `AUTH_MODE=none`: no authentication, the tenant comes from `X-Tenant` — an explicit opt-in for local
 *   development and tests, warned about loudly at every boot.
 * - nothing set: `none` only while the server listens on a loopback address (HOST, default 127.0.0.1),
 *   so nothing outside the machine can reach it; on any other address the service refuses to boot.
 * Returns the mode, or the problem that stops the boot.
 */
export function resolveAuthMode(env: {
  AUTH_MODE?: AuthMode;
  API_KEYS?: string;
  HOST: string;
}): { mode: AuthMode; implicit: boolean } | { problem: string } {
  const keys = isSet(env.API_KEYS);
  if (env.AUTH_MODE === 'none') {
    return keys
      ? { problem: 'API_KEYS: set while AUTH_MODE=none; remove one of them' }
      : { mode: 'none', implicit: false };
  }
  if (env.AUTH_MODE === 'api-key') {
    return keys
      ? { mode: 'api-key', implicit: false }
      : { problem: 'API_KEYS: required with AUTH_MODE=api-key (tenant:key,… or API_KEYS_FILE)' };
  }
  if (keys) return { mode: 'api-key', implicit: true };
  if (LOOPBACK.test(env.HOST)) return { mode: 'none', implicit: true };
  return {
    problem:
      `AUTH_MODE: no API keys while listening on ${env.HOST}, which is not a loopback address: set API_KEYS ` +
      '(or API_KEYS_FILE) to tenant:key entries, or AUTH_MODE=none to serve every tenant without authentication on purpose',
  };
}
