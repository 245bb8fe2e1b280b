import type { Kafka } from 'kafkajs';

/**
 * - `starting`: connecting and joining for the first time;
 * - `running`: kafkajs' runner is alive (it may be fetching, handling, or rejoining after a rebalance);
 * - `restarting`: the consumer crashed and the transport is building a new one (with backoff);
 * - `stopped`: closed.
 */
export type ConsumerState = 'starting' | 'running' | 'restarting' | 'stopped';

export interface ConsumerStatus {
  readonly groupId: string;
  readonly state: ConsumerState;
  /** When the consumer entered this state (ISO 8601). */
  readonly since: string;
  /** Restarts after crashes since the process started. */
  readonly restarts: number;
  /** The crash or failed restart that put it in `restarting`. */
  readonly lastError?: string;
  /**
   * Assigned partitions that are behind (records not committed) and on which nothing was committed for longer
   * than the stall limit, as `topic[partition]`: a consumer that runs but does not move.
   */
  readonly stalled?: readonly string[];
  /**
   * When the group last confirmed the member (a heartbeat answered, a join), set only when that is longer ago than
   * the session timeout: the coordinator holds it no longer (it is rejoining, or stuck), so it consumes nothing.
   */
  readonly unconfirmedSince?: string;
}

/** What a health check can ask a consumer. */
export interface WatchedConsumer {
  readonly groupId: string;
  /** The consumer's state, without asking the broker. */
  consumerStatus(): ConsumerStatus;
  /** The state plus the stalled partitions (asks the broker for the partitions' lag). */
  checkConsumer(stallMs: number): Promise<ConsumerStatus>;
}

/**
 * The consumers running on a Kafka client, so the service's health check (which holds the same client) can tell
 * whether they run. Keyed by client: a process may hold several (tests do), each with its own health check.
 */
const consumersByClient = new WeakMap<Kafka, Set<WatchedConsumer>>();

export function watchConsumer(kafka: Kafka, consumer: WatchedConsumer): void {
  let set = consumersByClient.get(kafka);
  if (!set) consumersByClient.set(kafka, (set = new Set()));
  set.add(consumer);
}

export function unwatchConsumer(kafka: Kafka, consumer: WatchedConsumer): void {
  consumersByClient.get(kafka)?.delete(consumer);
}

export function consumersOf(kafka: Kafka): WatchedConsumer[] {
  return [...(consumersByClient.get(kafka) ?? [])];
}
