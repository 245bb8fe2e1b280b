import type { Kafka } from 'kafkajs';
import { DEFAULT_PARTITIONS, TOPIC_CONFIG } from '@ctxledger/contracts';

/**
 * Creates the topics that are missing, leaves existing ones alone, and returns once every partition of every
 * topic has a leader. Topics are pre-created because auto-creation under KRaft hands kafkajs a transient error
 * on first use. They keep everything (TOPIC_CONFIG), and get the cluster's default replication factor and
 * min.insync.replicas (a production cluster's, or 3 and 2 on the local three-broker stack): the topics a service
 * creates are as safe as the cluster is set up to make them.
 *
 * kafkajs' own `waitForLeaders` gives up on the first metadata answer that does not know the topic yet (KRaft
 * propagates a new topic's metadata a moment after creating it), so the leaders are awaited here, bounded.
 */
export async function ensureTopics(
  kafka: Kafka,
  topics: readonly string[],
  numPartitions: number = DEFAULT_PARTITIONS,
  timeoutMs = 30_000,
): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: false,
        topics: missing.map((topic) => ({
          topic,
          numPartitions,
          configEntries: [...TOPIC_CONFIG],
        })),
      });
    }
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const problem = await admin
        .fetchTopicMetadata({ topics: [...topics] })
        .then(
          ({ topics: found }) =>
            found.find((t) => t.partitions.length === 0 || t.partitions.some((p) => p.leader < 0))?.name,
        )
        .catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
      if (problem === undefined) return missing;
      if (Date.now() > deadline) throw new Error(`topics not ready within ${timeoutMs} ms: ${problem}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await admin.disconnect();
  }
}
