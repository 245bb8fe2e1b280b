/**
 * Kafka topic names. Every topic is keyed by session id, so all events of one session are totally
 * ordered on one partition. The prefix lets several deployments (or test runs) share a broker.
 */
export const DEFAULT_TOPIC_PREFIX = 'ctxledger';
export const DEFAULT_PARTITIONS = 6;

/**
 * Configuration every topic is created with. The topics are the system of record: the compaction service
 * rebuilds its state by replaying the session stream from offset 0, and the read model can be rebuilt from
 * the session and block streams, so nothing may expire (`retention.ms=-1`, no size limit).
 */
export const TOPIC_CONFIG: readonly { readonly name: string; readonly value: string }[] = [
  { name: 'retention.ms', value: '-1' },
  { name: 'retention.bytes', value: '-1' },
];

export interface TopicNames {
  /**
   * Session stream: session configured, message appended, compaction requested, block revert requested, and
   * the summarizer's results. Results travel here, not on a topic of their own, so that a session's whole
   * history — including the moment each summary arrived — is one ordered log: replaying it yields the same
   * blocks (invariant 5).
   */
  readonly sessionEvents: string;
  /** Block stream: block created, block reverted. */
  readonly blocks: string;
  /** Summary requests from the compaction service to the summarizer. */
  readonly summaryRequests: string;
  /** Events no consumer could process, with the reason. */
  readonly deadLetter: string;
}

export function topicNames(prefix: string = DEFAULT_TOPIC_PREFIX): TopicNames {
  if (!/^[a-zA-Z0-9._-]{1,100}$/.test(prefix)) {
    throw new Error(`invalid topic prefix "${prefix}": use 1-100 of [a-zA-Z0-9._-]`);
  }
  return {
    sessionEvents: `${prefix}.session-events`,
    blocks: `${prefix}.blocks`,
    summaryRequests: `${prefix}.summary-requests`,
    deadLetter: `${prefix}.dead-letter`,
  };
}

export function allTopics(prefix: string = DEFAULT_TOPIC_PREFIX): string[] {
  return Object.values(topicNames(prefix));
}

type StreamName = keyof TopicNames;

/**
 * Who writes and reads which topic, as the code does it (checked against the sources by
 * test/unit/deploy-acls.spec.ts); the Kafka ACLs of deploy/k8s/kafka-acls.yaml grant exactly this:
 * - session-service: appends the HTTP writes to the session stream; its projector reads the session and block
 *   streams; dead-letters what it cannot project.
 * - compaction-service: reads the session stream; the only writer of blocks and summary requests; writes
 *   `summary.failed` (a summary that did not come in time) and forwards records a raw producer put on the wrong
 *   partition to the session stream; dead-letters.
 * - summarizer-service: reads summary requests; writes its results to the session stream; dead-letters.
 * - agents (any platform publishing raw): the session stream only.
 * Consumer groups are `<prefix>.<group>`; the session service's rebuild uses fresh `<prefix>.session-rebuild.*`
 * (a group ending in '.' is a prefix). `principal`: the SASL user of each in the deploy examples.
 */
export const TOPIC_ACCESS = {
  'session-service': {
    principal: 'ctxledger-session',
    writes: ['sessionEvents', 'deadLetter'],
    reads: ['sessionEvents', 'blocks'],
    groups: ['session-projector', 'session-rebuild.'],
  },
  'compaction-service': {
    principal: 'ctxledger-compaction',
    writes: ['sessionEvents', 'blocks', 'summaryRequests', 'deadLetter'],
    reads: ['sessionEvents'],
    groups: ['compaction'],
  },
  'summarizer-service': {
    principal: 'ctxledger-summarizer',
    writes: ['sessionEvents', 'deadLetter'],
    reads: ['summaryRequests'],
    groups: ['summarizer'],
  },
  agents: { principal: 'ctxledger-agent', writes: ['sessionEvents'], reads: [], groups: [] },
} as const satisfies Record<
  string,
  { principal: string; writes: readonly StreamName[]; reads: readonly StreamName[]; groups: readonly string[] }
>;
