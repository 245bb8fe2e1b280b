import 'reflect-metadata';
import { bootstrapService, SERVICE_ENV } from '@ctxledger/platform';
import { KAFKA_CLIENT, KAFKA_SETTINGS, KafkaEventTransport, type KafkaSettings } from '@ctxledger/kafka';
import { AppModule } from './app.module';
import { CompactionService } from './compaction/compaction.service';
import type { CompactionServiceEnv } from './config/compaction-service.env';
import { ConsumerMetrics } from '@ctxledger/observability';

bootstrapService(AppModule, 'compaction-service', {
  microservice: (app) => {
    const settings = app.get<KafkaSettings>(KAFKA_SETTINGS);
    const env = app.get<CompactionServiceEnv>(SERVICE_ENV);
    const compaction = app.get(CompactionService);
    return new KafkaEventTransport({
      kafka: app.get(KAFKA_CLIENT),
      topics: settings.topics,
      streams: ['sessionEvents'],
      groupId: env.COMPACTION_GROUP_ID ?? `${settings.topicPrefix}.compaction`,
      consumerName: 'compaction-service',
      partitionsConsumedConcurrently: env.PARTITIONS_CONCURRENTLY,
      // Per-session state lives in memory: rebuild it from the log for every partition this instance gets.
      replayOnAssignment: ['sessionEvents'],
      // The one forwarder of the deployment: a raw producer's record on the wrong partition for its key
      // (kcat hashes keys differently from Java clients) is copied to its key's partition, then skipped.
      partitionGuard: { streams: ['sessionEvents'], forward: true },
      onAssigned: (assignment) => compaction.keepPartitions(new Set(assignment[settings.topics.sessionEvents] ?? [])),
      onOutcome: app.get(ConsumerMetrics).record,
      onLagProbe: app.get(ConsumerMetrics).watchLag,
    });
  },
}).catch((error: unknown) => {
  console.error(`compaction-service failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
