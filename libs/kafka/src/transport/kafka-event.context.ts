import { BaseRpcContext, RpcException } from '@nestjs/microservices';
import type { AnyEvent, StreamName } from '@ctxledger/contracts';

type Args = [topic: string, partition: number, offset: string, replay?: boolean];

/** What a handler learns about the record besides the event: where it came from, and whether it is a replay. */
export class KafkaEventContext extends BaseRpcContext<Args> {
  /**
   * True when the record was already processed before (its offset is below the group's committed offset
   * at assignment time) and is delivered again only to rebuild in-memory state: fold it, emit nothing.
   */
  isReplay(): boolean {
    return this.args[3] === true;
  }
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
  /** Correlation id of each event (its record's header, or derived), same order; for per-event logs. */
  readonly correlationIds?: readonly string[];
  /**
   * Whether each event is a replay (see KafkaEventContext.isReplay: fold it, emit nothing), same order; absent when
   * none is. A replayed event a handler reports as poison is not dead-lettered again.
   */
  readonly replays?: readonly boolean[];
}

/**
 * A handler throws this when an event is valid JSON of its contract but can never be processed.
 * It is an RpcException so that Nest's exception filter passes its marker through to the transport
 * (any other error reaches the transport as "Internal server error" and is treated as transient).
 */
export class PoisonEventError extends RpcException {
  constructor(message: string) {
    super({ poison: true, message });
    this.name = 'PoisonEventError';
  }
}

/** True for a PoisonEventError, thrown directly or passed through Nest's exception filter. */
export function isPoison(error: unknown): error is { poison: true; message: string } {
  if (error instanceof PoisonEventError) return true;
  return typeof error === 'object' && error !== null && (error as { poison?: unknown }).poison === true;
}

export function errorMessage(error: unknown): string {
  if (error instanceof PoisonEventError) return (error.getError() as { message: string }).message;
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return String(error);
}

/** Nest pattern of a batch handler for a stream: `@EventPattern(batchPattern('blocks'))`. */
export const batchPattern = (stream: StreamName): string => `batch:${stream}`;
