/** The page's only way to the service: the public /v1 API, with the API key (or, auth off, the tenant) kept for the tab. */

const KEY_ITEM = 'ctxledger.apiKey';
const TENANT_ITEM = 'ctxledger.tenant';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describe(status, body));
  }
}

function describe(status: number, body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  const text = Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : '';
  return `${status}${text ? `: ${text}` : ''}`;
}

/** Kept in sessionStorage: entered once, gone when the browser session ends. */
export const credentials = {
  get apiKey(): string {
    return sessionStorage.getItem(KEY_ITEM) ?? '';
  },
  set apiKey(value: string) {
    if (value) sessionStorage.setItem(KEY_ITEM, value);
    else sessionStorage.removeItem(KEY_ITEM);
  },
  get tenant(): string {
    return sessionStorage.getItem(TENANT_ITEM) ?? '';
  },
  set tenant(value: string) {
    if (value) sessionStorage.setItem(TENANT_ITEM, value);
    else sessionStorage.removeItem(TENANT_ITEM);
  },
};

export async function request<T>(path: string, init: RequestInit = {}, key = credentials.apiKey): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (key) headers.authorization = `Bearer ${key}`;
  else if (credentials.tenant) headers['x-tenant'] = credentials.tenant;
  const res = await fetch(`/v1${path}`, {
    ...init,
    headers: { ...headers, ...(init.headers as Record<string, string>) },
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  if (!res.ok) throw new ApiError(res.status, body);
  return body as T;
}

export const get = <T>(path: string) => request<T>(path);
export const post = <T>(path: string, body?: unknown) =>
  request<T>(path, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) });

export const enc = encodeURIComponent;
