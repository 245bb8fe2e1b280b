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
      to: { path: 'libs/(contracts|kafka|persistence|observability|platform)/' },
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
