import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * `npm ci` refuses a lockfile in which a package's optional dependency (a native binary for another
 * platform) has no entry of its own. The registry mirror of these machines lacks some platforms' binaries
 * at recent versions, so npm cannot record them; package.json pins such packages (`overrides`) to versions
 * that exist for every platform. This test fails as soon as a change brings one back.
 */
describe('package-lock.json', () => {
  const lock = JSON.parse(readFileSync(resolve(__dirname, '../../package-lock.json'), 'utf8')) as {
    packages: Record<string, { optionalDependencies?: Record<string, string>; peer?: boolean }>;
  };

  it('records every optional dependency it names, so npm ci accepts it on a fresh clone', () => {
    // Node's resolution: <path>/node_modules/<name>, then the same from each enclosing package, up to the root.
    const resolves = (path: string, name: string): boolean => {
      for (let dir = path; ;) {
        if (lock.packages[`${dir ? `${dir}/` : ''}node_modules/${name}`]) return true;
        if (!dir) return false;
        const cut = dir.lastIndexOf('/node_modules/');
        dir = cut < 0 ? '' : dir.slice(0, cut);
      }
    };
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolves(path, name)) missing.push(`${name} (optional dependency of ${path || 'the root'})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
