import { Partitioners, type ProducerConfig } from 'kafkajs';

/**
 * The settings of every producer of the services (the HTTP appends, blocks and summary requests, dead letters,
 * forwarded records).
 *
 * Not kafkajs' idempotent producer: when a produce request fails (its answer lost or late: a broker stopping
 * between writing a batch and answering, a dropped connection) kafkajs hands the batch's sequence numbers back,
 * although the broker may have written it. The next send on that partition, another session's event, takes the
 * same numbers, and the broker, recognising the sequence of a batch it already holds, answers "written" with that
 * batch's offset without writing anything: an acknowledged event lost (test/integration/producer-lost-answer,
 * three times in three tries; the three-broker fault test met it under load). Without idempotence a retry of a
 * batch the broker had written writes it again, which costs nothing here: every event carries its id, messages
 * their clientMessageId, blocks and summary requests deterministic ids, and every consumer drops what it already
 * applied.
 *
 * Also: acknowledged by all in-sync replicas (each send passes `acks: -1`); one request in flight per broker, so
 * a producer's retries do not reorder its batches; murmur2 on the key, as the Java client and partition-guard.ts.
 */
export function producerConfig(overrides: Partial<ProducerConfig> = {}): ProducerConfig {
  return {
    idempotent: false,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    ...overrides,
  };
}
