/** Routes open to anyone, never authenticated nor rate limited: probes and scrapes. */
export const PUBLIC_PATHS: readonly string[] = ['/health', '/metrics'];

export const isPublicPath = (path: string | undefined): boolean =>
  path !== undefined && PUBLIC_PATHS.includes(path.replace(/\/+$/, '') || '/');
