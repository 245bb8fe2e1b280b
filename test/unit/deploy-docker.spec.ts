import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { validate } from 'dockerfile-utils';
import { dockerfileProblems, dockerignored, stages } from '../../deploy/tools/dockerfile-rules';

const root = resolve(__dirname, '../..');
const APPS = { 'session-service': 3000, 'compaction-service': 3001, 'summarizer-service': 3002 } as const;
const read = (path: string) => readFileSync(resolve(root, path), 'utf8');
const packageJson = JSON.parse(read('package.json')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const nodeMajor = Number(/(\d+)/.exec(packageJson.engines.node)![1]);

function files(dir: string): string[] {
  return readdirSync(resolve(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe.each(Object.entries(APPS))('deploy/docker/%s.Dockerfile', (app, port) => {
  const text = read(`deploy/docker/${app}.Dockerfile`);
  const ignore = read(`deploy/docker/${app}.Dockerfile.dockerignore`);

  it('parses without a diagnostic (dockerfile-utils, the Dockerfile language server validator)', () => {
    expect(validate(text).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('follows the hadolint-style rules: multi-stage, pinned Node 22 images, non-root, exec form, health check', () => {
    expect(dockerfileProblems(text, { nodeMajor, port })).toEqual([]);
    expect(stages(text).map((s) => s.image)).toEqual([
      `node:${nodeMajor}-bookworm-slim`,
      `node:${nodeMajor}-bookworm-slim`,
      `gcr.io/distroless/nodejs${nodeMajor}-debian12:nonroot`,
    ]);
  });

  it('builds this app and runs what it built', () => {
    expect(text).toContain(`RUN npx nest build ${app}\n`);
    expect(text).toContain(`COPY --from=build /src/dist/apps/${app}/main.js ./main.js`);
    expect(text).toContain('CMD ["main.js"]');
  });

  it('every file the build copies is in the build context its .dockerignore leaves; tests and secrets are not', () => {
    const copied = stages(text)
      .flatMap((s) => s.instructions)
      .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(copied.length).toBeGreaterThan(4);
    for (const source of copied) {
      const paths = source === 'apps' || source === 'libs' ? files(source) : [source];
      const kept = paths.filter((p) => !dockerignored(ignore, p));
      expect({ source, kept: kept.length > 0 }).toEqual({ source, kept: true });
    }
    for (const needed of [
      'package.json',
      'package-lock.json',
      'nest-cli.json',
      'tsconfig.json',
      'tsconfig.build.json',
      `apps/${app}/src/main.ts`,
      `apps/${app}/tsconfig.app.json`,
      'libs/context-engine/src/index.ts',
    ])
      expect({ needed, ignored: dockerignored(ignore, needed) }).toEqual({ needed, ignored: false });
    for (const left of [
      'node_modules/kafkajs/package.json',
      'dist/apps/session-service/main.js',
      'test/e2e/pipeline.e2e-spec.ts',
      '.stack/default/kafka.pid',
      '.git/config',
      '.env',
      'apps/session-service/src/queries/session-view.spec.ts',
    ])
      expect({ left, ignored: dockerignored(ignore, left) }).toEqual({ left, ignored: true });
  });
});

/** The npm packages a source file imports (type-only imports included: stricter than needed). */
function importedPackages(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/\bfrom\s+'([^'.][^']*)'|\bimport\s+'([^'.][^']*)'|\brequire\('([^'.][^']*)'\)/g)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec.startsWith('@ctxledger/') || spec.startsWith('node:') || builtinModules.includes(spec)) continue;
    out.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
  }
  return [...out];
}

describe('deploy/docker: the runtime image has what the built services import', () => {
  it('every package the apps and libs import is a production dependency (webpack leaves node_modules external)', () => {
    const sources = [...files('apps'), ...files('libs')].filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.includes('/testing/'),
    );
    const found = new Set<string>();
    const missing: string[] = [];
    for (const file of sources) {
      for (const pkg of importedPackages(readFileSync(resolve(root, file), 'utf8'))) {
        found.add(pkg);
        if (!(pkg in packageJson.dependencies)) missing.push(`${pkg} (${file})`);
      }
    }
    expect([...found]).toEqual(expect.arrayContaining(['kafkajs', 'mongoose', 'prom-client', '@nestjs/core']));
    expect(missing).toEqual([]);
  });

  it('an import of a dev dependency would be caught (the check can fail)', () => {
    const pkgs = importedPackages(
      "import { faker } from 'fast-check';\nimport type { Config } from 'jest';\nimport { x } from './local';\nimport { readFileSync } from 'node:fs';\n",
    );
    expect(pkgs).toEqual(['fast-check', 'jest']);
    expect(pkgs.filter((p) => !(p in packageJson.dependencies))).toEqual(['fast-check', 'jest']);
  });
});

describe('deploy/docker: the validators reject broken Dockerfiles (each check can fail)', () => {
  const good = read('deploy/docker/session-service.Dockerfile');
  const problems = (text: string) => dockerfileProblems(text, { nodeMajor, port: 3000 });

  it('dockerfile-utils reports a malformed instruction', () => {
    expect(validate(good.replace('EXPOSE 3000', 'EXPOSE three-thousand')).length).toBeGreaterThan(0);
    expect(validate(good.replace('HEALTHCHECK --interval=15s', 'HEALTHCHECK --intervl=15s')).length).toBeGreaterThan(0);
  });

  it.each([
    ['root user', good.replace('USER nonroot', 'USER root'), 'DL3002'],
    ['no user', good.replace('USER nonroot\n', ''), 'DL3002'],
    [
      'latest tag',
      good.replace('ARG NODE_BUILD_IMAGE=node:22-bookworm-slim', 'ARG NODE_BUILD_IMAGE=node:latest'),
      'DL3007',
    ],
    [
      'untagged image',
      good.replace('ARG NODE_BUILD_IMAGE=node:22-bookworm-slim', 'ARG NODE_BUILD_IMAGE=node'),
      'DL3006',
    ],
    [
      'Node 20',
      good.replace('ARG NODE_BUILD_IMAGE=node:22-bookworm-slim', 'ARG NODE_BUILD_IMAGE=node:20-bookworm-slim'),
      'node 22',
    ],
    ['shell-form CMD', good.replace('CMD ["main.js"]', 'CMD node main.js'), 'DL3025'],
    ['ADD', good.replace('COPY apps ./apps', 'ADD apps ./apps'), 'DL3020'],
    ['npm install', good.replace('RUN npm ci --ignore-scripts --no-audit --no-fund', 'RUN npm install'), 'DL3016'],
    ['no health check', good.replace(/HEALTHCHECK[^\n]*\\\n[^\n]*\n/, ''), 'HEALTHCHECK'],
    ['wrong port', good.replace('EXPOSE 3000', 'EXPOSE 8080'), 'EXPOSE'],
    ['loopback host', good.replace('HOST=0.0.0.0', 'HOST=127.0.0.1'), 'HOST'],
    ['one stage', 'FROM node:22-bookworm-slim\nUSER node\nEXPOSE 3000\nCMD ["main.js"]\n', 'multi-stage'],
    ['dev dependencies shipped', good.replace('npm ci --omit=dev', 'npm ci'), '--omit=dev'],
  ])('%s', (_what, text, rule) => {
    expect(text).not.toBe(good);
    expect(problems(text).join('\n')).toContain(rule);
  });

  it('a .dockerignore that leaves out the sources is caught', () => {
    expect(dockerignored('**\n!package.json\n', 'apps/session-service/src/main.ts')).toBe(true);
    expect(dockerignored('**\n!apps/**\n**/*.spec.ts\n', 'apps/a/src/x.spec.ts')).toBe(true);
    expect(dockerignored('**\n!apps/**\n', 'apps/a/src/x.ts')).toBe(false);
  });
});
