import type { Kafka } from 'kafkajs';
import { DEFAULT_PARTITIONS, TOPIC_CONFIG } from '@ctxledger/contracts';

/**
 * Creates the topics that are missing, leaves existing ones alone. Topics are pre-created because
 * auto-creation under KRaft hands kafkajs a transient error on first use. They keep everything (TOPIC_CONFIG).
 */
export async function ensureTopics(
  kafka: Kafka,
  topics: readonly string[],
  numPartitions: number = DEFAULT_PARTITIONS,
): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((topic) => ({
          topic,
          numPartitions,
          replicationFactor: 1,
          configEntries: [...TOPIC_CONFIG],
        })),
      });
    }
    return missing;
  } finally {
    await admin.disconnect();
  }
}
