import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { TOPIC_ACCESS, topicNames } from '@ctxledger/contracts';

/**
 * The Kafka ACLs of the deployment grant what the code does and nothing more: the producer/consumer map
 * (TOPIC_ACCESS) is derived here from the services' sources, and the ACL script of deploy/k8s and the SASL
 * principals of the compose file are checked against it.
 */

const root = resolve(__dirname, '../..');
type App = 'session-service' | 'compaction-service' | 'summarizer-service';
const APPS: App[] = ['session-service', 'compaction-service', 'summarizer-service'];
type Access = { writes: string[]; reads: string[]; groups: string[] };

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'testing' ? [] : sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [readFileSync(path, 'utf8')] : [];
  });
}

const uniqueSorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

/** What an app's code produces to, consumes from, and the consumer groups it joins. */
function accessInCode(app: App): Access {
  const code = sources(resolve(root, 'apps', app, 'src')).join('\n');
  const writes = [...code.matchAll(/stream: '(\w+)'/g)].map((m) => m[1]!);
  const reads = [...code.matchAll(/streams: \[([^\]]+)\]/g)]
    .filter((m) => !/partitionGuard: \{ $/.test(code.slice(Math.max(0, m.index! - 17), m.index!)))
    .flatMap((m) => [...m[1]!.matchAll(/'(\w+)'/g)].map((x) => x[1]!));
  // A consumer transport dead-letters what it cannot process; `forward: true` re-publishes misrouted records.
  if (reads.length > 0) writes.push('deadLetter');
  if (/partitionGuard: \{ streams: \[[^\]]*\], forward: true/.test(code)) writes.push('sessionEvents');
  const groups = [...code.matchAll(/topicPrefix\}\.([\w-]+\.?)/g)].map((m) => m[1]!);
  return { writes: uniqueSorted(writes), reads: uniqueSorted(reads), groups: uniqueSorted(groups) };
}

const declared = (who: keyof typeof TOPIC_ACCESS): Access => ({
  writes: uniqueSorted(TOPIC_ACCESS[who].writes),
  reads: uniqueSorted(TOPIC_ACCESS[who].reads),
  groups: uniqueSorted(TOPIC_ACCESS[who].groups),
});

/** What an ACL script grants, per principal, in TOPIC_ACCESS's terms. */
function granted(script: string): Map<string, Access> {
  const names = topicNames('P');
  const streamOf = new Map(Object.entries(names).map(([stream, topic]) => [topic.slice(2), stream]));
  const out = new Map<string, Access>();
  const of = (who: string) => {
    if (!out.has(who)) out.set(who, { writes: [], reads: [], groups: [] });
    return out.get(who)!;
  };
  for (const line of script.split('\n').map((l) => l.trim())) {
    const grant = /^grant (\S+) (Write|Read) (.+)$/.exec(line);
    if (grant) {
      const list = grant[2] === 'Write' ? of(grant[1]!).writes : of(grant[1]!).reads;
      for (const t of grant[3]!.split(/\s+/)) list.push(streamOf.get(t) ?? `unknown topic ${t}`);
    }
    const group = /^group (\S+) (\S+)/.exec(line);
    if (group) of(group[1]!).groups.push(group[2]!);
  }
  for (const a of out.values()) Object.assign(a, declaredSorted(a));
  return out;
}
const declaredSorted = (a: Access): Access => ({
  writes: uniqueSorted(a.writes),
  reads: uniqueSorted(a.reads),
  groups: uniqueSorted(a.groups),
});

const aclScript = (): string => {
  const docs = parseAllDocuments(readFileSync(resolve(root, 'deploy/k8s/kafka-acls.yaml'), 'utf8')).map(
    (d) => d.toJS() as { kind: string; data?: Record<string, string> },
  );
  return docs.find((d) => d.kind === 'ConfigMap')!.data!['acls.sh']!;
};

/** Every difference between what a script grants and TOPIC_ACCESS (empty: exactly the same). */
function aclProblems(script: string): string[] {
  const grants = granted(script);
  const problems: string[] = [];
  for (const [who, access] of Object.entries(TOPIC_ACCESS)) {
    const got = grants.get(access.principal) ?? { writes: [], reads: [], groups: [] };
    const want = declared(who as keyof typeof TOPIC_ACCESS);
    for (const k of ['writes', 'reads', 'groups'] as const)
      if (JSON.stringify(got[k]) !== JSON.stringify(want[k]))
        problems.push(`${access.principal} ${k}: granted ${got[k].join(',')}, the code needs ${want[k].join(',')}`);
    grants.delete(access.principal);
  }
  for (const who of grants.keys()) problems.push(`${who}: a principal the code does not know`);
  return problems;
}

describe('Kafka ACLs: who may write what', () => {
  it.each(APPS)('TOPIC_ACCESS of %s is what its code produces, consumes and joins', (app) => {
    expect(declared(app)).toEqual(accessInCode(app));
  });

  it('only the compaction service writes blocks and summary requests; agents write the session stream only', () => {
    const writers = (stream: string) =>
      Object.entries(TOPIC_ACCESS)
        .filter(([, a]) => (a.writes as readonly string[]).includes(stream))
        .map(([who]) => who);
    expect(writers('blocks')).toEqual(['compaction-service']);
    expect(writers('summaryRequests')).toEqual(['compaction-service']);
    expect(TOPIC_ACCESS.agents.writes).toEqual(['sessionEvents']);
  });

  it('the k8s ACL script grants exactly TOPIC_ACCESS', () => {
    expect(aclProblems(aclScript())).toEqual([]);
  });

  it('the check can fail: an agent granted the block stream, a service missing its group', () => {
    const broken = aclScript()
      .replace('grant ctxledger-agent Write session-events', 'grant ctxledger-agent Write session-events blocks')
      .replace('group ctxledger-summarizer summarizer', '');
    expect(aclProblems(broken)).toEqual([
      expect.stringMatching(/^ctxledger-summarizer groups: granted , the code needs summarizer/),
      expect.stringMatching(/^ctxledger-agent writes: granted blocks,sessionEvents/),
    ]);
  });

  it('the compose file names each service its own SASL principal', () => {
    const compose = readFileSync(resolve(root, 'deploy/compose/compose.yaml'), 'utf8');
    for (const app of APPS) {
      const block = compose.slice(compose.indexOf(`\n  ${app}:\n`));
      const own = block.slice(0, block.indexOf('\n  ', block.indexOf('ports:')));
      expect(own).toContain(`KAFKA_SASL_USERNAME: ${TOPIC_ACCESS[app].principal}`);
    }
  });
});
