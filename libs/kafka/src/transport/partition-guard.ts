import { Partitioners } from 'kafkajs';
import { LRUCache } from 'lru-cache';
import { firstInvalidUtf8Byte } from '@ctxledger/contracts';

/**
 * The partition a key belongs on: murmur2, as the Java client and kafkajs (our producers) choose it.
 * Not every client does so (librdkafka, hence kcat and most non-Java clients, hashes with CRC32 by default),
 * so a raw producer may put a session's event on another partition than ours: such a record is
 * "misplaced" and forwarded to this one, so that a session stays on one partition, in one order.
 */
export function keyPartition(topic: string, key: string, numPartitions: number): number {
  // Called for every consumed record; kafkajs's murmur2 on its Long type costs more than the rest of the guard.
  const memoKey = `${numPartitions}\u0000${key}`;
  let partition = partitionOfKey.get(memoKey);
  if (partition === undefined) {
    partition = partitioner({ topic, partitionMetadata: metadataFor(numPartitions), message: { key } } as never);
    partitionOfKey.set(memoKey, partition);
  }
  return partition;
}
const partitioner = Partitioners.DefaultPartitioner();
/** The keyed partitioner depends on the key and the partition count only (not the topic). */
const partitionOfKey = new LRUCache<string, number>({ max: 50_000 });

// Called for every consumed record: the partition list a partitioner needs is built once per partition count.
const metadataByCount = new Map<number, Array<{ partitionId: number; leader: number }>>();
function metadataFor(numPartitions: number) {
  let metadata = metadataByCount.get(numPartitions);
  if (!metadata) {
    metadata = Array.from({ length: numPartitions }, (_, partitionId) => ({ partitionId, leader: 0 }));
    metadataByCount.set(numPartitions, metadata);
  }
  return metadata;
}

/**
 * The copy of a misplaced record sent to its key's partition. It keeps what identifies the original, so
 * a second forwarding of the same record (after a crash) is a recognizable duplicate: an event id when the
 * producer gave none, and for a message a client message id when it had none.
 */
export function forwardedValue(
  value: Buffer | null,
  origin: { partition: number; offset: string; topic: string },
): Buffer | null {
  // Not valid UTF-8: forwarded as it is, to be dead-lettered on its proper partition (never re-encoded with U+FFFD).
  if (value === null || firstInvalidUtf8Byte(value) >= 0) return value;
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(value.toString()) as Record<string, unknown>;
  } catch {
    return value; // not JSON: it is dead-lettered on its proper partition
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return value;
  const copy: Record<string, unknown> = { ...event };
  if (copy.eventId === undefined) copy.eventId = `${origin.topic}/${origin.partition}/${origin.offset}`;
  const data = copy.data as Record<string, unknown> | undefined;
  if (copy.type === 'message.appended' && data && typeof data === 'object' && data.clientMessageId === undefined) {
    copy.data = { ...data, clientMessageId: `fwd:p${origin.partition}:o${origin.offset}` };
  }
  return Buffer.from(JSON.stringify(copy));
}
