// @ts-check
const { readFileSync } = require('node:fs');

// Path aliases come from tsconfig.json so there is one list of them.
const tsconfig = JSON.parse(readFileSync(`${__dirname}/tsconfig.json`, 'utf8'));
/** @type {Record<string, string>} */
const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(tsconfig.compilerOptions.paths)) {
  const key = alias.endsWith('/*') ? `^${alias.slice(0, -2)}/(.*)$` : `^${alias}$`;
  moduleNameMapper[key] = `<rootDir>/${target.endsWith('/*') ? `${target.slice(0, -2)}/$1` : target}`;
}

/** @type {import('jest').Config['transform']} */
const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
      },
      module: { type: 'commonjs' },
    },
  ],
};

// Decorator metadata (Nest DI, class-validator, class-transformer) needs the Reflect polyfill loaded first.
const common = {
  rootDir: __dirname,
  moduleNameMapper,
  transform,
  testEnvironment: 'node',
  setupFiles: ['reflect-metadata'],
};

/** @type {import('jest').Config} */
const config = {
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  // Three workers (Jest's default on these 2-core machines is one): the integration files mostly wait on brokers,
  // servers and timers, and runs here took 435 s of Jest on two workers, 347 s on three, 384 s on four. The
  // integration files hold a lock (integration-environment.js) under which up to three of them run at once, one on
  // each worker, and an `@exclusive` one (it times answers under load, or loads the machine itself) alone, beside the
  // unit specs. The sequencer runs the exclusive files first, the unit specs beside them, then the others slowest
  // first (test-sequencer.js).
  maxWorkers: 3,
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/test/unit/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts', '<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      // One integration file per worker at a time, an `@exclusive` one alone, whichever worker runs it.
      testEnvironment: '<rootDir>/test/support/integration-environment.js',
      // Runs only when a test of this project is selected: brings the local stack up if it is not.
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/integration-timeout.ts'],
    },
  ],
};

module.exports = config;
