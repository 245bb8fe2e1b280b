import type { INestApplication } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { KAFKA_CLIENT, KAFKA_SETTINGS, KafkaEventTransport, type KafkaSettings } from '@ctxledger/kafka';
import { projectorGroupId } from './projection.metrics';
import { ConsumerMetrics } from '@ctxledger/observability';

/**
 * The projector's Kafka transport: both streams, whole partition batches, commits after the writes,
 * poison dead-lettered. `groupId` replaces the deployment's group (the rebuild reads with a group of its own).
 */
export function projectorTransport(app: INestApplication, groupId?: string): KafkaEventTransport {
  const settings = app.get<KafkaSettings>(KAFKA_SETTINGS);
  const config = app.get(ConfigService);
  return new KafkaEventTransport({
    kafka: app.get(KAFKA_CLIENT),
    topics: settings.topics,
    streams: ['sessionEvents', 'blocks'],
    groupId: groupId ?? projectorGroupId(config, settings),
    consumerName: 'session-projector',
    fromBeginning: true,
    partitionsConsumedConcurrently: config.getOrThrow<number>('PROJECTOR_PARTITIONS_CONCURRENTLY'),
    onOutcome: app.get(ConsumerMetrics).record,
    // Records a raw producer put on another partition than their key's are skipped here: the compaction
    // service forwards them to the right one, where they are projected in the session's order.
    partitionGuard: { streams: ['sessionEvents'], forward: false },
  });
}
