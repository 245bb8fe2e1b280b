import { createHash, timingSafeEqual } from 'node:crypto';
import { ID_PATTERN, LIMITS } from '@ctxledger/contracts';

/** Shortest API key accepted: 32 characters (e.g. `openssl rand -hex 32` gives 64). */
export const MIN_API_KEY_LENGTH = 32;
const KEY_PATTERN = /^[A-Za-z0-9._~+/=-]+$/;

export interface ApiKeyEntry {
  readonly tenant: string;
  /** SHA-256 of the key: the key itself is not kept once parsed. */
  readonly hash: Buffer;
}

export const hashApiKey = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/**
 * Parses API_KEYS (or the content of API_KEYS_FILE): either `tenant:key` entries separated by commas or
 * new lines (`#` starts a comment line; a tenant may have several keys, for rotation), or a JSON object
 * `{"tenant": "key"}` / `{"tenant": ["key1", "key2"]}`. Problems name an entry by its position only: never
 * a key, nor a tenant (an entry written the wrong way round puts the key where the tenant goes).
 */
export function parseApiKeys(text: string): { entries: ApiKeyEntry[]; problems: string[] } {
  const pairs: { tenant: string; key: string; where: string }[] = [];
  const problems: string[] = [];
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return { entries: [], problems: ['API_KEYS: starts with { but is not valid JSON'] };
    }
    Object.entries(parsed as Record<string, unknown>).forEach(([tenant, keys], t) => {
      const list = Array.isArray(keys) ? (keys as unknown[]) : [keys];
      list.forEach((key, i) => {
        if (typeof key !== 'string') problems.push(`API_KEYS: member ${t + 1}, key ${i + 1} is not a string`);
        else pairs.push({ tenant, key, where: `member ${t + 1}, key ${i + 1}` });
      });
    });
  } else {
    const entries = trimmed
      .split(/[,\n]/)
      .map((s) => s.trim())
      .filter((s) => s !== '' && !s.startsWith('#'));
    entries.forEach((entry, i) => {
      const colon = entry.lastIndexOf(':');
      if (colon <= 0 || colon === entry.length - 1) {
        problems.push(`API_KEYS: entry ${i + 1} is not tenant:key`);
        return;
      }
      const tenant = entry.slice(0, colon);
      pairs.push({ tenant, key: entry.slice(colon + 1), where: `entry ${i + 1}` });
    });
  }
  const seen = new Map<string, string>();
  const entries: ApiKeyEntry[] = [];
  for (const { tenant, key, where } of pairs) {
    if (tenant.length > LIMITS.maxIdLength || !ID_PATTERN.test(tenant)) {
      problems.push(`API_KEYS: ${where}: a tenant is 1-${LIMITS.maxIdLength} of letters, digits and _:@-`);
      continue;
    }
    if (key.length < MIN_API_KEY_LENGTH || !KEY_PATTERN.test(key)) {
      problems.push(
        `API_KEYS: ${where}: a key is at least ${MIN_API_KEY_LENGTH} of letters, digits and ._~+/=- (e.g. openssl rand -hex 32)`,
      );
      continue;
    }
    const hash = hashApiKey(key);
    const other = seen.get(hash.toString('hex'));
    if (other !== undefined) {
      problems.push(`API_KEYS: ${where} repeats the key of ${other}: each key belongs to one tenant`);
      continue;
    }
    seen.set(hash.toString('hex'), where);
    entries.push({ tenant, hash });
  }
  if (problems.length === 0 && entries.length === 0) problems.push('API_KEYS: no key in it');
  return { entries, problems };
}

/**
 * The tenant of a presented key, or undefined. Compares the key's hash with every configured hash in
 * constant time and without stopping at a match, so timing tells nothing about which keys exist.
 */
export function tenantOfKey(entries: readonly ApiKeyEntry[], presented: string): string | undefined {
  const hash = hashApiKey(presented);
  let found: string | undefined;
  for (const entry of entries) {
    if (timingSafeEqual(entry.hash, hash) && found === undefined) found = entry.tenant;
  }
  return found;
}
