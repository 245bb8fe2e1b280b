import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../..');

/** Runs dependency-cruiser with the repo's rules; returns the violated rule names per offending file. */
function cruise(
  cwd: string,
  paths: string[],
  tsConfig?: string,
): { cruised: string[]; violations: Array<{ rule: string; from: string; to: string }> } {
  const result = spawnSync(
    resolve(root, 'node_modules/.bin/depcruise'),
    [
      '--config',
      resolve(root, '.dependency-cruiser.cjs'),
      ...(tsConfig ? ['--ts-config', tsConfig] : []),
      '--output-type',
      'json',
      ...paths,
    ],
    { cwd, encoding: 'utf8' },
  );
  if (!result.stdout) throw new Error(`depcruise printed nothing: ${result.stderr}`);
  const report = JSON.parse(result.stdout) as {
    modules: Array<{ source: string }>;
    summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> };
  };
  return {
    cruised: report.modules.map((m) => m.source),
    violations: report.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to })),
  };
}

describe('architecture rules (dependency-cruiser)', () => {
  it('libs and apps break no rule: the context engine is pure', () => {
    const { cruised, violations } = cruise(root, ['libs', 'apps'], resolve(root, 'tsconfig.json'));
    expect(cruised).toContain('libs/context-engine/src/model/message.ts');
    expect(cruised).toContain('apps/session-service/src/main.ts');
    expect(violations).toEqual([]);
  }, 60_000);

  it('the rules catch an engine file that imports kafkajs, mongoose and node:fs', () => {
    const { violations } = cruise(resolve(root, 'test/fixtures/impure-engine'), ['libs']);
    const rules = violations.map((v) => `${v.rule} -> ${v.to}`).join('\n');
    expect(rules).toMatch(/engine-is-pure -> .*node_modules\/kafkajs/);
    expect(rules).toMatch(/engine-is-pure -> .*node_modules\/mongoose/);
    expect(rules).toMatch(/engine-does-no-io -> (node:)?fs/);
  }, 60_000);

  it('the rules catch a lib cycle through a spec file, a lib importing platform, sibling adapters, contracts on an adapter, config on a lib', () => {
    const { violations } = cruise(resolve(root, 'test/fixtures/tangled-libs'), ['libs']);
    const rules = violations.map((v) => `${v.rule}: ${v.from} -> ${v.to}`).join('\n');
    expect(rules).toMatch(/no-cycles: libs\/(kafka|platform)\/src\//);
    expect(rules).toMatch(
      /platform-is-the-outermost-lib: libs\/kafka\/src\/settings\.spec\.ts -> libs\/platform\/src\/env\.ts/,
    );
    expect(rules).toMatch(
      /kafka-and-persistence-are-siblings: libs\/kafka\/src\/settings\.spec\.ts -> libs\/persistence\/src\/mongo\.ts/,
    );
    expect(rules).toMatch(
      /contracts-above-the-adapters: libs\/contracts\/src\/codec\.ts -> libs\/kafka\/src\/settings\.ts/,
    );
    expect(rules).toMatch(/config-imports-no-lib: libs\/config\/src\/validate\.ts -> libs\/kafka\/src\/settings\.ts/);
  }, 60_000);
});
