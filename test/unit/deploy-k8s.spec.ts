import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { allTopics, DEFAULT_PARTITIONS } from '@ctxledger/contracts';
import { APP_PORTS, knownVariables, type AppName } from '../../deploy/tools/env-variables';
import { k8sTypeErrors } from '../../deploy/tools/k8s-types';

const root = resolve(__dirname, '../..');
const k8sDir = resolve(root, 'deploy/k8s');
const manifestFiles = readdirSync(k8sDir)
  .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
  .sort();
const CONSUMERS: AppName[] = ['compaction-service', 'summarizer-service'];

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: any };

const loadFile = (file: string): K8sObject[] =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as K8sObject);
const loadAll = (): K8sObject[] => manifestFiles.flatMap((f) => loadFile(join(k8sDir, f)));
const deploymentOf = (app: AppName): any => loadFile(join(k8sDir, `${app}.yaml`)).find((o) => o.kind === 'Deployment')!;

/** Runs deploy/tools/validate-k8s.mjs (kubernetes-models' JSON-schema validators; ESM, hence a child process). */
function schemaCheck(files: string[]): {
  status: number;
  results: Array<{ file: string; kind: string; errors: string[] }>;
} {
  const r = spawnSync(process.execPath, [resolve(root, 'deploy/tools/validate-k8s.mjs'), ...files], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.stdout.trim() === '') throw new Error(`validate-k8s printed nothing: ${r.stderr}`);
  return {
    status: r.status ?? -1,
    results: r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  };
}

/** The Job that creates the topics (the ACL job is another). */
const topicsJob = (objects: K8sObject[]) =>
  objects.find((o) => o.kind === 'Job' && o.metadata.name === 'ctxledger-kafka-topics')!;

/** The topics job's `--partitions N`. */
const jobPartitions = (objects: K8sObject[]) =>
  Number(/--partitions (\d+)/.exec(topicsJob(objects).spec.template.spec.containers[0].args.join('\n'))![1]);

/** Policy checks in the spirit of kube-score / Polaris, plus the links between our objects. */
function policyProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
  const known = knownVariables();
  const partitions = jobPartitions(objects);
  for (const o of objects) {
    if (o.kind !== 'Namespace' && o.metadata.namespace !== 'context-ledger')
      problems.push(`${o.kind}/${o.metadata.name}: namespace`);
  }
  for (const d of objects.filter((o) => o.kind === 'Deployment')) {
    const name = d.metadata.name;
    const where = `Deployment/${name}`;
    const labels = d.spec.template.metadata.labels;
    for (const [k, v] of Object.entries(d.spec.selector.matchLabels))
      if (labels[k] !== v) problems.push(`${where}: selector does not match the pod labels`);
    const pod = d.spec.template.spec;
    if (pod.securityContext?.runAsNonRoot !== true) problems.push(`${where}: runAsNonRoot`);
    if (pod.automountServiceAccountToken !== false)
      problems.push(`${where}: mounts a service account token it does not use`);
    for (const c of pod.containers) {
      const ports = (c.ports ?? []).map((p: any) => p.name);
      for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (!c[probe]) problems.push(`${where}: no ${probe}`);
        else if (!ports.includes(c[probe].httpGet?.port))
          problems.push(`${where}: ${probe} on a port the container does not name`);
      }
      if (c.readinessProbe?.httpGet?.path !== '/health') problems.push(`${where}: readiness must ask /health`);
      if (c.livenessProbe?.httpGet?.path === '/health')
        problems.push(`${where}: liveness must not depend on Kafka/MongoDB (/health)`);
      for (const r of ['requests', 'limits'])
        for (const k of ['cpu', 'memory']) if (!c.resources?.[r]?.[k]) problems.push(`${where}: no ${r}.${k}`);
      const sc = c.securityContext ?? {};
      if (sc.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation`);
      if (sc.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem`);
      if (!sc.capabilities?.drop?.includes('ALL')) problems.push(`${where}: capabilities not dropped`);
      if (/:latest$|^[^:]+$/.test(c.image)) problems.push(`${where}: image ${c.image} not pinned`);
      const port = APP_PORTS[name as AppName];
      if (c.ports?.[0]?.containerPort !== port) problems.push(`${where}: containerPort is not ${port}`);
      const env = new Map((c.env ?? []).map((e: any) => [e.name, e]));
      if ((env.get('PORT') as any)?.value !== String(port)) problems.push(`${where}: PORT is not ${port}`);
      for (const e of c.env ?? []) {
        if (!known.has(e.name)) problems.push(`${where}: unknown variable ${e.name}`);
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && !ref.optional && !(ref.key in (find('Secret', ref.name)?.stringData ?? {})))
          problems.push(`${where}: no key ${ref.key} in Secret ${ref.name}`);
      }
      for (const from of c.envFrom ?? [])
        if (!find('ConfigMap', from.configMapRef?.name))
          problems.push(`${where}: no ConfigMap ${from.configMapRef?.name}`);
    }
    const service = find('Service', name);
    if (!service) problems.push(`${where}: no Service`);
    else if (Object.entries(service.spec.selector).some(([k, v]) => labels[k] !== v))
      problems.push(`Service/${name}: selects no pod`);
    const pdb = find('PodDisruptionBudget', name);
    if (!pdb) problems.push(`${where}: no PodDisruptionBudget`);
    else if (Object.entries(pdb.spec.selector.matchLabels).some(([k, v]) => labels[k] !== v))
      problems.push(`PodDisruptionBudget/${name}: selects no pod`);
    const hpa = find('HorizontalPodAutoscaler', name);
    if (!hpa) problems.push(`${where}: no HorizontalPodAutoscaler`);
    else {
      if (hpa.spec.scaleTargetRef.name !== name || hpa.spec.scaleTargetRef.kind !== 'Deployment')
        problems.push(`HPA/${name}: scales something else`);
      if (hpa.spec.minReplicas < 2)
        problems.push(`HPA/${name}: fewer than 2 replicas (the PDB would block every drain)`);
      if (CONSUMERS.includes(name as AppName) && hpa.spec.maxReplicas > partitions)
        problems.push(
          `HPA/${name}: maxReplicas ${hpa.spec.maxReplicas} > ${partitions} partitions (extra consumers sit idle)`,
        );
    }
  }
  // ConfigMaps mounted as files (the ACL script) hold files, not variables.
  const mounted = new Set(
    objects.flatMap((o) => (o.spec?.template?.spec?.volumes ?? []).map((v: any) => v.configMap?.name)),
  );
  for (const cm of objects.filter(
    (o) => (o.kind === 'ConfigMap' && !mounted.has(o.metadata.name)) || o.kind === 'Secret',
  ))
    for (const k of Object.keys(cm.data ?? cm.stringData ?? {}))
      if (!known.has(k)) problems.push(`${cm.kind}/${cm.metadata.name}: unknown variable ${k}`);
  return problems;
}

describe('deploy/k8s manifests', () => {
  const objects = loadAll();

  it('every document is valid against the Kubernetes API schema (kubernetes-models)', () => {
    const { status, results } = schemaCheck(manifestFiles.map((f) => join(k8sDir, f)));
    expect(results.filter((r) => r.errors.length > 0)).toEqual([]);
    expect(status).toBe(0);
    expect(results.map((r) => r.kind).sort()).toEqual(
      [
        'ConfigMap',
        'ConfigMap', // the ACL script
        'Job',
        'Job', // the ACLs
        'Namespace',
        'Secret',
        ...Object.keys(APP_PORTS).flatMap(() => [
          'Deployment',
          'HorizontalPodAutoscaler',
          'PodDisruptionBudget',
          'Service',
        ]),
      ].sort(),
    );
  });

  it('no unknown (misspelt) field, wrong type or missing required field: strict check with the API types', () => {
    // The JSON-schema validation above lets unknown fields through; the TypeScript compiler's excess-property
    // check on the kubernetes-models interfaces does not (what `kubeconform -strict` does). One compiler run
    // for the manifests and the broken fixtures, which must each be reported.
    const manifests = manifestFiles.flatMap((f) =>
      loadFile(join(k8sDir, f)).map((object, i) => ({ where: `${f}#${i}`, object })),
    );
    const misspelt = deploymentOf('compaction-service');
    const container = misspelt.spec.template.spec.containers[0];
    container.livenesProbe = container.livenessProbe;
    delete container.livenessProbe;
    const wrongType = deploymentOf('summarizer-service');
    wrongType.spec.template.spec.containers[0].resources.limits = '1Gi';
    const misspeltHpa = loadFile(join(k8sDir, 'session-service.yaml')).find(
      (o) => o.kind === 'HorizontalPodAutoscaler',
    )!;
    misspeltHpa.spec.maxReplica = misspeltHpa.spec.maxReplicas;
    delete misspeltHpa.spec.maxReplicas;
    const errors = k8sTypeErrors([
      ...manifests,
      { where: 'fixture:misspelt-field', object: misspelt },
      { where: 'fixture:wrong-type', object: wrongType },
      { where: 'fixture:misspelt-hpa', object: misspeltHpa },
    ]);
    expect(errors.filter((e) => !e.startsWith('fixture:'))).toEqual([]);
    expect(errors.find((e) => e.startsWith('fixture:misspelt-field'))).toContain('\'"livenesProbe"\' does not exist');
    expect(errors.some((e) => e.startsWith('fixture:wrong-type'))).toBe(true);
    expect(errors.some((e) => e.startsWith('fixture:misspelt-hpa'))).toBe(true);
  });

  it('passes the policy checks: probes, resources, non-root, Service, PDB and HPA per Deployment, known variables', () => {
    expect(policyProblems(objects)).toEqual([]);
  });

  it('the topics job creates every topic with the partitions the code expects and infinite retention', () => {
    const script = topicsJob(objects).spec.template.spec.containers[0].args.join('\n');
    expect(jobPartitions(objects)).toBe(DEFAULT_PARTITIONS);
    expect(script).toContain('--config retention.ms=-1');
    const suffixes = /for t in ([^;]+);/.exec(script)![1].trim().split(/\s+/);
    expect(suffixes.map((t) => `ctxledger.${t}`).sort()).toEqual(allTopics('ctxledger').sort());
  });

  it('the consumers scale up to the partition count and no further', () => {
    for (const app of CONSUMERS) {
      const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === app)!;
      expect(hpa.spec.maxReplicas).toBe(DEFAULT_PARTITIONS);
    }
  });

  it('kustomization.yaml lists exactly the manifests of the folder', () => {
    const [kustomization] = loadFile(join(k8sDir, 'kustomization.yaml')) as any[];
    expect([...kustomization.resources].sort()).toEqual(manifestFiles);
  });
});

describe('deploy/k8s: the validators reject broken manifests (each check can fail)', () => {
  const deployment = () => loadFile(join(k8sDir, 'compaction-service.yaml'))[0];
  const broken: Array<[string, (d: any) => unknown, string]> = [
    ['a string where an integer belongs', (d) => (d.spec.replicas = 'two'), 'must be integer'],
    ['a probe without a port', (d) => delete d.spec.template.spec.containers[0].livenessProbe.httpGet.port, 'port'],
    ['a container without a name', (d) => delete d.spec.template.spec.containers[0].name, 'name'],
    ['a port as a string', (d) => (d.spec.template.spec.containers[0].ports[0].containerPort = '3001'), 'integer'],
  ];
  let work: string;
  let checked: ReturnType<typeof schemaCheck>;

  // One run of the validator for all the broken fixtures (loading the models takes ~2 s).
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'ctxledger-k8s-'));
    const files = broken.map(([, breakIt], i) => {
      const d = deployment();
      breakIt(d);
      const file = join(work, `broken-${i}.yaml`);
      writeFileSync(file, stringify(d));
      return file;
    });
    const unknown = join(work, 'unknown.yaml');
    writeFileSync(unknown, 'apiVersion: apps/v1\nkind: Deploymint\nmetadata: { name: x }\n');
    checked = schemaCheck([...files, unknown]);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it.each(broken.map(([what, , message], i) => [what, i, message] as const))(
    'the schema check rejects %s',
    (_what, i, message) => {
      expect(checked.status).toBe(1);
      expect(checked.results[i].errors.join('\n')).toContain(message);
    },
  );

  it('an unknown kind is rejected', () => {
    expect(checked.results[broken.length].errors.join('\n')).toContain('unknown apiVersion/kind');
  });

  it.each([
    [
      'a missing readiness probe',
      (os: K8sObject[]) =>
        delete os.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].readinessProbe,
      'no readinessProbe',
    ],
    [
      'a liveness probe on /health',
      (os: K8sObject[]) =>
        (os.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].livenessProbe.httpGet.path =
          '/health'),
      'liveness must not depend',
    ],
    [
      'no memory limit',
      (os: K8sObject[]) =>
        delete os.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].resources.limits.memory,
      'no limits.memory',
    ],
    [
      'a root pod',
      (os: K8sObject[]) =>
        (os.find((o) => o.kind === 'Deployment')!.spec.template.spec.securityContext.runAsNonRoot = false),
      'runAsNonRoot',
    ],
    [
      'a consumer HPA beyond the partitions',
      (os: K8sObject[]) =>
        (os.find(
          (o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === 'compaction-service',
        )!.spec.maxReplicas = 12),
      'maxReplicas 12 > 6',
    ],
    [
      'a missing PodDisruptionBudget',
      (os: K8sObject[]) =>
        os.splice(
          os.findIndex((o) => o.kind === 'PodDisruptionBudget'),
          1,
        ),
      'no PodDisruptionBudget',
    ],
    [
      'a Service selecting nothing',
      (os: K8sObject[]) => (os.find((o) => o.kind === 'Service')!.spec.selector = { 'app.kubernetes.io/name': 'nope' }),
      'selects no pod',
    ],
    [
      'a secret key that does not exist',
      (os: K8sObject[]) => delete os.find((o) => o.kind === 'Secret')!.stringData.MONGODB_URI,
      'no key MONGODB_URI',
    ],
    [
      'a misspelt variable',
      (os: K8sObject[]) => (os.find((o) => o.kind === 'ConfigMap')!.data.KAFKA_BROKER = 'x:9092'),
      'unknown variable KAFKA_BROKER',
    ],
  ])('the policy checks catch %s', (_what, breakIt, problem) => {
    const objects = loadAll();
    breakIt(objects);
    expect(policyProblems(objects).join('\n')).toContain(problem);
  });
});
