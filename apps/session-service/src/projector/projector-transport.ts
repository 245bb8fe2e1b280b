import type { INestApplication } from '@nestjs/common';
import { KAFKA_CLIENT, KAFKA_SETTINGS, KafkaEventTransport, type KafkaSettings } from '@ctxledger/kafka';
import { ProjectionProgress } from './projection-progress';
import { projectorGroupId } from './projection.metrics';
import { ConsumerMetrics } from '@ctxledger/observability';
import { SERVICE_ENV } from '@ctxledger/platform';
import type { SessionServiceEnv } from '../config/session-service.env';

/**
 * The projector's Kafka transport: both streams, whole partition batches, commits after the writes,
 * poison dead-lettered. `groupId` replaces the deployment's group (the rebuild reads with a group of its own).
 * The deployment's projector tells `ProjectionProgress` which partitions it owns (the read side then answers
 * from memory what only this instance can have written); the rebuild's does not.
 */
export function projectorTransport(app: INestApplication, groupId?: string): KafkaEventTransport {
  const settings = app.get<KafkaSettings>(KAFKA_SETTINGS);
  const env = app.get<SessionServiceEnv>(SERVICE_ENV);
  const progress = groupId === undefined ? app.get(ProjectionProgress) : undefined;
  return new KafkaEventTransport({
    kafka: app.get(KAFKA_CLIENT),
    topics: settings.topics,
    streams: ['sessionEvents', 'blocks'],
    groupId: groupId ?? projectorGroupId(env, settings),
    consumerName: 'session-projector',
    fromBeginning: true,
    partitionsConsumedConcurrently: env.PROJECTOR_PARTITIONS_CONCURRENTLY,
    onOutcome: app.get(ConsumerMetrics).record,
    onAssigned: (assignment, counts) =>
      progress?.assigned({
        sessionEvents: {
          partitions: assignment[settings.topics.sessionEvents] ?? [],
          partitionCount: counts.get(settings.topics.sessionEvents) ?? 0,
        },
        blocks: {
          partitions: assignment[settings.topics.blocks] ?? [],
          partitionCount: counts.get(settings.topics.blocks) ?? 0,
        },
      }),
    onRevoked: () => progress?.assigned({}),
    onMembership: (holdsUntil) => progress?.memberUntil(holdsUntil),
    // Records a raw producer put on another partition than their key's are skipped here: the compaction
    // service forwards them to the right one, where they are projected in the session's order.
    partitionGuard: { streams: ['sessionEvents'], forward: false },
  });
}
