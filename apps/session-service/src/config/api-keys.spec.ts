import { hashApiKey, parseApiKeys, tenantOfKey } from './api-keys';
import { resolveAuthMode } from './auth-mode';
import { validateEnv } from '@ctxledger/config';
import { SessionServiceEnv } from './session-service.env';

const K1 = 'a'.repeat(32);
const K2 = 'b'.repeat(40);
const K3 = 'c'.repeat(64);

describe('API keys', () => {
  it('parses tenant:key lists (commas, new lines, comments, several keys a tenant, colons in tenants)', () => {
    const { entries, problems } = parseApiKeys(
      `# keys\nacme:${K1}, globex:${K2}\n\norg:team@x:${K3}\nacme:${K3.toUpperCase()}`,
    );
    expect(problems).toEqual([]);
    expect(entries.map((e) => e.tenant)).toEqual(['acme', 'globex', 'org:team@x', 'acme']);
    expect(entries[0]!.hash).toEqual(hashApiKey(K1));
  });

  it('parses a JSON map tenant → key or keys', () => {
    const { entries, problems } = parseApiKeys(JSON.stringify({ acme: [K1, K2], globex: K3 }));
    expect(problems).toEqual([]);
    expect(entries.map((e) => e.tenant)).toEqual(['acme', 'acme', 'globex']);
  });

  it('names each bad entry without its key', () => {
    const { problems } = parseApiKeys(`acme:short,nocolon,bad tenant:${K1},globex:${K1}`);
    expect(problems).toEqual([
      'API_KEYS: entry 2 is not tenant:key',
      'API_KEYS: entry 1: a key is at least 32 of letters, digits and ._~+/=- (e.g. openssl rand -hex 32)',
      'API_KEYS: entry 3: a tenant is 1-200 of letters, digits and _:@-',
    ]);
    expect(parseApiKeys(`a:${K1},b:${K1}`).problems).toEqual([
      'API_KEYS: entry 2 repeats the key of entry 1: each key belongs to one tenant',
    ]);
    expect(parseApiKeys('{"acme": 1}').problems).toEqual(['API_KEYS: member 1, key 1 is not a string']);
    expect(parseApiKeys('{oops').problems).toEqual(['API_KEYS: starts with { but is not valid JSON']);
    expect(parseApiKeys(' # nothing ').problems).toEqual(['API_KEYS: no key in it']);
    expect(JSON.stringify(parseApiKeys(`acme:${K1}x y`).problems)).not.toContain(K1);
    // Written the wrong way round (key:tenant): the key sits where the tenant goes, and is still not shown.
    expect(parseApiKeys(`${K3}:acme`).problems).toEqual([expect.stringMatching(/^API_KEYS: entry 1: a key is/)]);
    expect(JSON.stringify(parseApiKeys(`${K3}:acme`).problems)).not.toContain(K3);
    expect(JSON.stringify(parseApiKeys(JSON.stringify({ [K3]: 'acme' })).problems)).not.toContain(K3);
  });

  it('finds the tenant of a key, and nothing for any other string', () => {
    const { entries } = parseApiKeys(`acme:${K1},globex:${K2}`);
    expect(tenantOfKey(entries, K1)).toBe('acme');
    expect(tenantOfKey(entries, K2)).toBe('globex');
    expect(tenantOfKey(entries, K1.slice(1))).toBeUndefined();
    expect(tenantOfKey(entries, '')).toBeUndefined();
    expect(tenantOfKey(entries, `${K1} `)).toBeUndefined();
  });
});

describe('auth mode at boot', () => {
  it.each([
    [{ HOST: '127.0.0.1' }, { mode: 'none', implicit: true }],
    [{ HOST: 'localhost' }, { mode: 'none', implicit: true }],
    [
      { HOST: '0.0.0.0', AUTH_MODE: 'none' as const },
      { mode: 'none', implicit: false },
    ],
    [
      { HOST: '0.0.0.0', API_KEYS: `a:${K1}` },
      { mode: 'api-key', implicit: true },
    ],
    [
      { HOST: '127.0.0.1', AUTH_MODE: 'api-key' as const, API_KEYS: `a:${K1}` },
      { mode: 'api-key', implicit: false },
    ],
  ])('%j → %j', (env, expected) => {
    expect(resolveAuthMode(env)).toEqual(expected);
  });

  it.each([
    [{ HOST: '0.0.0.0' }, /AUTH_MODE: no API keys while listening on 0\.0\.0\.0/],
    [{ HOST: '10.1.2.3' }, /not a loopback address/],
    [{ HOST: '127.0.0.1', AUTH_MODE: 'api-key' as const }, /API_KEYS: required with AUTH_MODE=api-key/],
    [{ HOST: '127.0.0.1', AUTH_MODE: 'none' as const, API_KEYS: `a:${K1}` }, /API_KEYS: set while AUTH_MODE=none/],
  ])('%j is refused', (env, problem) => {
    const result = resolveAuthMode(env);
    expect('problem' in result && result.problem).toMatch(problem);
  });

  it('is checked with the rest of the environment, keys hidden, API_KEYS_FILE read', () => {
    const validate = validateEnv(SessionServiceEnv);
    expect(() => validate({ HOST: '0.0.0.0' })).toThrow(/AUTH_MODE: no API keys/);
    let message = '';
    try {
      validate({ API_KEYS: `acme:${K1},acme:${K1}`, RATE_LIMIT_REQUESTS: '-1' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/RATE_LIMIT_REQUESTS/);
    expect(message).not.toContain(K1);
    try {
      validate({ API_KEYS: `acme:${K1},globex:${K1}` });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/entry 2 repeats the key of entry 1/);
    expect(message).not.toContain(K1);
    expect(validate({ API_KEYS: `acme:${K1}` }).RATE_LIMIT_REQUESTS).toBe(600);
  });
});
