import type { Kafka } from 'kafkajs';
import { committedOffsets } from './group-lag';

/** `topic:partition` */
export type TopicPartition = string;

export const topicPartition = (topic: string, partition: number): TopicPartition => `${topic}:${partition}`;

/**
 * Which partitions a consumer holds, and for the streams it replays (a consumer that keeps state in memory rebuilds
 * it from the log), up to which offset a record is a replay: a partition newly assigned is read again from its
 * first offset, and the records below its committed offset reach the handlers as replays (fold, do not emit).
 */
export class ReplayTracker {
  /** `topic:partition` → the committed offset at assignment: records below it are replays. */
  private readonly replayUntil = new Map<TopicPartition, bigint>();
  private held = new Set<TopicPartition>();

  constructor(
    private readonly kafka: Kafka,
    private readonly groupId: string,
    /** The topics whose newly assigned partitions are replayed. */
    private readonly replayTopics: ReadonlySet<string>,
  ) {}

  /** The partitions held since the last assignment was prepared. */
  get assigned(): ReadonlySet<TopicPartition> {
    return this.held;
  }

  isReplay(topic: string, partition: number, offset: string): boolean {
    const until = this.replayUntil.get(topicPartition(topic, partition));
    return until !== undefined && BigInt(offset) < until;
  }

  /** Nothing is held any more (the consumer crashed): every partition of the next assignment is fresh. */
  reset(): void {
    this.held = new Set();
    this.replayUntil.clear();
  }

  /**
   * After the group assigned `assignment`: for each newly assigned partition of a replayed topic, remembers its
   * committed offset and asks `seek` to move it back to its low watermark. Fails as a whole (nothing recorded), so a
   * retry finds the same partitions fresh.
   */
  async prepare(
    assignment: Record<string, number[]>,
    seek: (topic: string, partition: number, offset: string) => void,
    log: (line: string) => void,
  ): Promise<void> {
    const now = new Set(Object.entries(assignment).flatMap(([t, ps]) => ps.map((p) => topicPartition(t, p))));
    const fresh = [...now].filter((tp) => !this.held.has(tp));
    for (const tp of this.replayUntil.keys()) if (!now.has(tp)) this.replayUntil.delete(tp);
    const toReplay = fresh.filter((tp) => this.replayTopics.has(tp.slice(0, tp.lastIndexOf(':'))));
    if (toReplay.length === 0) {
      this.held = now;
      return;
    }
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const topics = [...this.replayTopics].filter((t) => toReplay.some((tp) => tp.startsWith(`${t}:`)));
      const committed = await committedOffsets(admin, this.groupId, topics);
      for (const topic of topics) {
        const watermarks = await admin.fetchTopicOffsets(topic);
        for (const tp of toReplay.filter((x) => x.startsWith(`${topic}:`))) {
          const partition = Number(tp.slice(topic.length + 1));
          const until = committed.get(tp) ?? 0n;
          const low = watermarks.find((w) => w.partition === partition)?.low ?? '0';
          this.replayUntil.set(tp, until);
          if (until > BigInt(low)) {
            log(`replaying ${topic}[${partition}] from ${low} to ${until} to rebuild state`);
            seek(topic, partition, low);
          }
        }
      }
      // Only now: a failed attempt must find these partitions still fresh when it is retried.
      this.held = now;
    } finally {
      await admin.disconnect();
    }
  }
}
