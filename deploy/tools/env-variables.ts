import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../..');
export const APP_PORTS = { 'session-service': 3000, 'compaction-service': 3001, 'summarizer-service': 3002 } as const;
export type AppName = keyof typeof APP_PORTS;

/**
 * Every environment variable the services read: the properties of their validated config classes (and the
 * `<NAME>_FILE` form of each), plus what Node itself reads. A deploy file setting anything else has a typo.
 */
export function knownVariables(): Set<string> {
  const files = [
    'libs/platform/src/config/base-env.ts',
    'libs/kafka/src/config/kafka.env.ts',
    'libs/persistence/src/config/mongo.env.ts',
    ...Object.keys(APP_PORTS).map((app) => `apps/${app}/src/config/${app}.env.ts`),
  ];
  const names = new Set(['NODE_ENV', 'NODE_OPTIONS']);
  for (const f of files) {
    for (const m of readFileSync(resolve(root, f), 'utf8').matchAll(/^\s+(?:override\s+)?([A-Z][A-Z0-9_]+)[?!]?:/gm)) {
      names.add(m[1]);
      names.add(`${m[1]}_FILE`);
    }
  }
  return names;
}
