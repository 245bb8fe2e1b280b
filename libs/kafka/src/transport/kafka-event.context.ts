import { BaseRpcContext } from '@nestjs/microservices';
import type { AnyEvent } from '@ctxledger/contracts';

type Args = [topic: string, partition: number, offset: string];

/** What a handler learns about the record besides the event: where it came from. */
export class KafkaEventContext extends BaseRpcContext<Args> {
  getTopic(): string {
    return this.args[0];
  }
  getPartition(): number {
    return this.args[1];
  }
  getOffset(): string {
    return this.args[2];
  }
}

/** The payload of a batch handler: the valid events of one partition's batch, in order. */
export interface KafkaEventBatch {
  readonly topic: string;
  readonly partition: number;
  readonly events: readonly AnyEvent[];
  /** Offset of each event, same order. */
  readonly offsets: readonly string[];
}

/** A handler throws this when an event is valid JSON of its contract but can never be processed. */
export class PoisonEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoisonEventError';
  }
}

/** Nest pattern of a batch handler for a stream: `@EventPattern(batchPattern('blocks'))`. */
export const batchPattern = (stream: string): string => `batch:${stream}`;
