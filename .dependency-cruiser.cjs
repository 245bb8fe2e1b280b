/**
 * Architecture rules, checked by test/unit/architecture.spec.ts.
 * The context engine is pure domain logic: no framework, no broker, no database, no metrics, no I/O.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'engine-is-pure',
      comment: 'libs/context-engine imports nothing from Nest, Kafka, MongoDB or Prometheus',
      severity: 'error',
      from: { path: 'libs/context-engine/' },
      to: { path: 'node_modules/(@nestjs/|kafkajs|mongoose|mongodb|prom-client|rxjs)' },
    },
    {
      name: 'engine-does-no-io',
      comment: 'libs/context-engine does no file, network or process I/O',
      severity: 'error',
      from: { path: 'libs/context-engine/src/', pathNot: '\\.spec\\.ts$' },
      to: {
        dependencyTypes: ['core'],
        path: '^(node:)?(fs|fs/promises|net|http|https|http2|dgram|dns|child_process|cluster|worker_threads|tls|readline)$',
      },
    },
    {
      name: 'engine-depends-on-no-other-lib',
      comment: 'the engine is the innermost layer: it imports no other library of ours',
      severity: 'error',
      from: { path: 'libs/context-engine/' },
      to: { path: 'libs/(config|contracts|kafka|persistence|observability|platform)/' },
    },
    {
      name: 'no-cycles',
      comment: 'no import cycle anywhere, test files included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-is-the-outermost-lib',
      comment: 'platform composes the other libraries for the services: none of them imports it (specs included)',
      severity: 'error',
      from: { path: 'libs/(config|context-engine|contracts|kafka|persistence|observability)/' },
      to: { path: 'libs/platform/' },
    },
    {
      name: 'kafka-and-persistence-are-siblings',
      comment: 'the Kafka and MongoDB adapters know nothing of each other',
      severity: 'error',
      from: { path: 'libs/(kafka|persistence)/' },
      to: { path: 'libs/(kafka|persistence)/', pathNot: '^libs/$1/' },
    },
    {
      name: 'contracts-above-the-adapters',
      comment: 'the contracts use the engine and observability only, never an adapter',
      severity: 'error',
      from: { path: 'libs/contracts/' },
      to: { path: 'libs/(kafka|persistence)/' },
    },
    {
      name: 'config-imports-no-lib',
      comment: 'the environment-validation toolkit under every adapter that owns variables: it imports no lib',
      severity: 'error',
      from: { path: 'libs/config/' },
      to: { path: 'libs/(context-engine|contracts|kafka|persistence|observability|platform)/' },
    },
    {
      name: 'observability-imports-no-lib',
      severity: 'error',
      from: { path: 'libs/observability/' },
      to: { path: 'libs/(context-engine|contracts|kafka|persistence|platform)/' },
    },
    {
      name: 'libs-do-not-import-apps',
      severity: 'error',
      from: { path: 'libs/' },
      to: { path: 'apps/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    exclude: { path: '(^|/)dist/' },
  },
};
