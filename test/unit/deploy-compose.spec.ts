import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { parse } from 'yaml';
import { allTopics, DEFAULT_PARTITIONS } from '@ctxledger/contracts';
import { APP_PORTS, knownVariables } from '../../deploy/tools/env-variables';

const root = resolve(__dirname, '../..');
const composeDir = resolve(root, 'deploy/compose');
const COMPOSE_FILE = resolve(composeDir, 'compose.yaml');
const APPS = APP_PORTS;

/** The official Compose Specification schema, vendored from compose-spec/compose-go v2.16.2 (schema/). */
const schema = JSON.parse(readFileSync(resolve(composeDir, 'compose-spec.json'), 'utf8'));
const validateSchema = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(schema);

/** The document as Compose sees it: YAML merge keys (`<<: *anchor`) resolved. */
const load = (text: string) => parse(text, { merge: true }) as any;

function schemaErrors(doc: unknown): string[] {
  return validateSchema(doc) ? [] : (validateSchema.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** What Compose itself would refuse or what would break at run time, beyond the schema. */
function composeProblems(doc: any): string[] {
  const problems: string[] = [];
  const services = doc.services as Record<string, any>;
  const known = knownVariables();
  const hostPorts = new Map<string, string>();
  for (const [name, s] of Object.entries(services)) {
    const dependsOn = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
    for (const d of dependsOn) if (!(d in services)) problems.push(`${name}: depends_on unknown service ${d}`);
    if (s.build) {
      const context = resolve(composeDir, s.build.context);
      if (!existsSync(resolve(context, s.build.dockerfile))) problems.push(`${name}: no ${s.build.dockerfile}`);
    }
    for (const v of s.volumes ?? []) {
      const source = String(v).split(':')[0];
      if (source.startsWith('.') && !existsSync(resolve(composeDir, source))) problems.push(`${name}: no ${source}`);
      if (!source.startsWith('.') && !(source in (doc.volumes ?? {})))
        problems.push(`${name}: undeclared volume ${source}`);
    }
    for (const p of s.ports ?? []) {
      const host = String(p).split(':')[0];
      if (hostPorts.has(host)) problems.push(`${name}: host port ${host} also used by ${hostPorts.get(host)}`);
      hostPorts.set(host, name);
    }
    if (name in APPS) {
      const port = APPS[name as keyof typeof APPS];
      const env = s.environment ?? {};
      if (Number(env.PORT) !== port) problems.push(`${name}: PORT ${env.PORT}, expected ${port}`);
      if (env.HOST !== '0.0.0.0') problems.push(`${name}: HOST must be 0.0.0.0 in a container`);
      for (const k of Object.keys(env)) if (!known.has(k)) problems.push(`${name}: unknown variable ${k}`);
      // An empty value is not an absent one: an optional URL or key set to '' fails the service's validation.
      for (const [k, v] of Object.entries(env))
        if (v === '' || /\$\{\w+:-\}/.test(String(v)))
          problems.push(`${name}: ${k} may be empty (leave the value out instead)`);
      const dependencies = Object.keys(s.depends_on ?? {});
      if (
        !dependencies.includes('kafka-topics') ||
        s.depends_on['kafka-topics'].condition !== 'service_completed_successfully'
      )
        problems.push(`${name}: must wait for the topics to be created`);
    }
  }
  return problems;
}

describe('deploy/compose/compose.yaml', () => {
  const text = readFileSync(COMPOSE_FILE, 'utf8');
  const doc = load(text);

  it('is valid against the Compose Specification JSON schema', () => {
    expect(schemaErrors(doc)).toEqual([]);
  });

  it('runs Kafka (KRaft), MongoDB, the three services, Prometheus and Grafana', () => {
    expect(Object.keys(doc.services).sort()).toEqual(
      [
        'compaction-service',
        'grafana',
        'kafka',
        'kafka-topics',
        'mongodb',
        'prometheus',
        'session-service',
        'summarizer-service',
      ].sort(),
    );
    expect(doc.services.kafka.environment.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(doc.services.kafka.image).toMatch(/^apache\/kafka:\d+\.\d+\.\d+$/);
    // A KRaft cluster id is a base64url UUID: 16 bytes.
    expect(Buffer.from(doc.services.kafka.environment.CLUSTER_ID, 'base64url')).toHaveLength(16);
  });

  it('has no dangling reference, port clash, unknown variable or missing file (what the schema does not check)', () => {
    expect(composeProblems(doc)).toEqual([]);
  });

  it('keeps the topics forever (the compaction service replays from offset 0) with the partitions the code expects', () => {
    const env = doc.services.kafka.environment;
    expect([env.KAFKA_LOG_RETENTION_MS, env.KAFKA_LOG_RETENTION_BYTES]).toEqual([-1, -1]);
    expect(env.KAFKA_AUTO_CREATE_TOPICS_ENABLE).toBe('false');
    const script = doc.services['kafka-topics'].command.join('\n');
    expect(script).toContain('--config retention.ms=-1');
    expect(script).toContain(`--partitions ${DEFAULT_PARTITIONS}`);
    const suffixes = /for t in ([^;]+);/.exec(script)![1].trim().split(/\s+/);
    expect(suffixes.map((t) => `ctxledger.${t}`).sort()).toEqual(allTopics('ctxledger').sort());
  });

  it('mounts the Prometheus config and rules, and Grafana provisioning, from deploy/', () => {
    const mounts = [...doc.services.prometheus.volumes, ...doc.services.grafana.volumes].map(String);
    expect(mounts).toEqual(
      expect.arrayContaining([
        '../prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro',
        '../prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro',
        '../grafana/provisioning:/etc/grafana/provisioning:ro',
      ]),
    );
    const prometheusConfig = readFileSync(resolve(root, 'deploy/prometheus/prometheus.yml'), 'utf8');
    expect(prometheusConfig).toContain('/etc/prometheus/alerts.yml');
    const datasource = readFileSync(resolve(root, 'deploy/grafana/provisioning/datasources/prometheus.yml'), 'utf8');
    expect(datasource).toContain('url: http://prometheus:9090');
    expect(dirname(COMPOSE_FILE)).toBe(composeDir);
  });
});

describe('deploy/compose: the validators reject broken compose files (each check can fail)', () => {
  const text = readFileSync(COMPOSE_FILE, 'utf8');

  it.each([
    ['a misspelt service key', text.replace('    image: mongo:7.0', '    imagee: mongo:7.0')],
    ['a misspelt top-level key', text.replace('\nvolumes:\n', '\nvolumez:\n')],
    ['a wrong type', text.replace("    ports: ['9090:9090']", '    ports: 9090')],
    ['an unknown depends_on condition', text.replace('condition: service_healthy', 'condition: service_ready')],
  ])('the schema rejects %s', (_what, broken) => {
    expect(broken).not.toBe(text);
    expect(schemaErrors(load(broken)).length).toBeGreaterThan(0);
  });

  it.each([
    [
      'a dependency on a service that does not exist',
      text.replace('depends_on: [prometheus]', 'depends_on: [prometheus-server]'),
      'depends_on unknown service',
    ],
    [
      'a missing Dockerfile',
      text.replace('deploy/docker/compaction-service.Dockerfile', 'deploy/docker/compaction.Dockerfile'),
      'no deploy/docker',
    ],
    ['a clashing host port', text.replace("ports: ['3003:3000']", "ports: ['3000:3000']"), 'host port 3000'],
    [
      'a variable no service reads',
      text.replace('  LOG_FORMAT: json\n', '  LOG_FORMAT: json\n  KAFKA_BROKER: kafka:9092\n'),
      'unknown variable KAFKA_BROKER',
    ],
    [
      'an empty default',
      text.replace('      OPENAI_BASE_URL:\n', '      OPENAI_BASE_URL: ${OPENAI_BASE_URL:-}\n'),
      'OPENAI_BASE_URL may be empty',
    ],
    ['a loopback HOST', text.replace('  HOST: 0.0.0.0\n', '  HOST: 127.0.0.1\n'), 'HOST must be 0.0.0.0'],
    [
      'a missing mount source',
      text.replace('../prometheus/alerts.yml:', '../prometheus/alert.yml:'),
      'no ../prometheus/alert.yml',
    ],
  ])('the semantic checks catch %s', (_what, broken, problem) => {
    expect(broken).not.toBe(text);
    expect(composeProblems(load(broken)).join('\n')).toContain(problem);
  });
});
