import type { Admin, Kafka } from 'kafkajs';

/** The offsets a consumer group has committed, by `topic:partition` (a partition it committed nothing on is absent). */
export async function committedOffsets(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
): Promise<Map<string, bigint>> {
  const committed = new Map<string, bigint>();
  for (const topic of topics) {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    for (const p of offsets?.partitions ?? []) {
      if (BigInt(p.offset) >= 0n) committed.set(`${topic}:${p.partition}`, BigInt(p.offset));
    }
  }
  return committed;
}

/**
 * Records a group has not committed, by topic and partition: high watermark − committed offset (from the low
 * watermark where it has committed nothing). Counts records handled but not committed too, so a partition stuck
 * on a retried record, or a consumer that is not running, shows a growing lag.
 */
export async function groupLag(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
): Promise<Map<string, Map<number, bigint>>> {
  const committed = await committedOffsets(admin, groupId, topics);
  const lag = new Map<string, Map<number, bigint>>();
  for (const topic of topics) {
    const behind = new Map<number, bigint>();
    for (const w of await admin.fetchTopicOffsets(topic)) {
      const from = committed.get(`${topic}:${w.partition}`) ?? BigInt(w.low);
      behind.set(w.partition, BigInt(w.high) > from ? BigInt(w.high) - from : 0n);
    }
    lag.set(topic, behind);
  }
  return lag;
}

/**
 * The lag of one group, measured through an admin client of its own (connected on first use, rebuilt after a
 * failure), so it answers while the group's consumer is down.
 */
export class GroupLagProbe {
  private admin?: Promise<Admin>;

  constructor(
    private readonly kafka: Kafka,
    private readonly groupId: string,
    private readonly topics: readonly string[],
  ) {}

  async byPartition(): Promise<Map<string, Map<number, bigint>>> {
    this.admin ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })();
    try {
      return await groupLag(await this.admin, this.groupId, this.topics);
    } catch (error) {
      await this.close(); // reconnect on the next probe
      throw error;
    }
  }

  /** The lag summed over each topic's partitions. */
  async byTopic(): Promise<Record<string, number>> {
    const lag: Record<string, number> = {};
    for (const [topic, partitions] of await this.byPartition()) {
      lag[topic] = Number([...partitions.values()].reduce((a, b) => a + b, 0n));
    }
    return lag;
  }

  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    await admin?.then((a) => a.disconnect()).catch(() => undefined);
  }
}
