import net from 'node:net';
import type { ISocketFactory } from 'kafkajs';

/** Kafka's Produce request (API key 0). */
const PRODUCE = 0;

/**
 * A kafkajs socket factory whose connections can lose the broker's answer to a Produce request: the request
 * reaches the broker, which writes the records, and the answer never reaches the client (it times out). That is
 * what a client sees when a broker stops, or a network drops, between writing a batch and answering for it.
 *
 * Requests are framed `int32 size, int16 apiKey, int16 apiVersion, int32 correlationId, …` and kafkajs writes
 * each one whole; answers are framed `int32 size, int32 correlationId, …` and may arrive split or joined, so
 * incoming bytes are re-framed before the lost answer is cut out.
 */
export class LostProduceAnswers {
  private armed = 0;
  /** Correlation ids of the Produce requests whose answers were dropped. */
  readonly dropped: number[] = [];

  /** The answer to the next Produce request sent on any connection is lost. */
  loseNext(): void {
    this.armed++;
  }

  readonly socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = net.connect({ host, port }, onConnect);
    const dropping = new Set<number>();
    const write = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean;
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (this.armed > 0 && Buffer.isBuffer(chunk) && chunk.length >= 12 && chunk.readInt16BE(4) === PRODUCE) {
        this.armed--;
        const correlationId = chunk.readInt32BE(8);
        dropping.add(correlationId);
        this.dropped.push(correlationId);
      }
      return write(chunk, ...rest);
    }) as typeof socket.write;

    // Every 'data' listener kafkajs adds gets the answers without the dropped ones.
    const on = socket.on.bind(socket) as (event: string, listener: (...args: unknown[]) => void) => net.Socket;
    socket.on = ((event: string, listener: (...args: unknown[]) => void) => {
      if (event !== 'data') return on(event, listener);
      let pending = Buffer.alloc(0);
      return on('data', (data: unknown) => {
        pending = Buffer.concat([pending, data as Buffer]);
        const kept: Buffer[] = [];
        while (pending.length >= 8 && pending.length >= 4 + pending.readInt32BE(0)) {
          const end = 4 + pending.readInt32BE(0);
          const frame = pending.subarray(0, end);
          pending = pending.subarray(end);
          if (!dropping.delete(frame.readInt32BE(4))) kept.push(frame);
        }
        if (kept.length > 0) listener(Buffer.concat(kept));
      });
    }) as typeof socket.on;
    return socket;
  };
}
