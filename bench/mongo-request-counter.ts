/**
 * A counting proxy for the MongoDB wire protocol: the services connect to it instead of the server, and it tells
 * how many requests of each command on each collection went through, how many documents they carried and how long
 * their answers took (`npm run bench -- --count-requests`). Bytes pass through unchanged; only the client's OP_MSG
 * headers and the top level of each command document are read, and the answers' headers (whose request they answer).
 */
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { nowMs, percentile, round } from './pipeline-support';

const OP_MSG = 2013;

export interface RequestCount {
  requests: number;
  /** Documents of `insert`, statements of `update` and `delete`. */
  documents: number;
  /** Milliseconds from each request to its answer through the proxy (the server's time and the wire's), p50 / p99 / max. */
  ms?: { p50: number; p99: number; max: number };
}

/** BSON element types whose value has a fixed size. */
const FIXED_SIZE: Record<number, number> = {
  0x01: 8, // double
  0x06: 0, // undefined
  0x07: 12, // ObjectId
  0x08: 1, // boolean
  0x09: 8, // date
  0x0a: 0, // null
  0x10: 4, // int32
  0x11: 8, // timestamp
  0x12: 8, // int64
  0x13: 16, // decimal128
  0x7f: 0, // max key
  0xff: 0, // min key
};

/** Where an element's value ends (undefined for a type this walker does not know). */
function valueEnd(buf: Buffer, type: number, at: number): number | undefined {
  const fixed = FIXED_SIZE[type];
  if (fixed !== undefined) return at + fixed;
  switch (type) {
    case 0x02: // string
    case 0x0d: // JavaScript code
    case 0x0e: // symbol
      return at + 4 + buf.readInt32LE(at);
    case 0x03: // document
    case 0x04: // array
    case 0x0f: // code with scope
      return at + buf.readInt32LE(at);
    case 0x05: // binary
      return at + 5 + buf.readInt32LE(at);
    default:
      return undefined;
  }
}

/** The top-level elements of the BSON document at `start`: type, name and where the value starts. */
function* elements(buf: Buffer, start: number): Generator<{ type: number; name: string; at: number }> {
  const end = start + buf.readInt32LE(start) - 1;
  let at = start + 4;
  while (at < end) {
    const type = buf[at]!;
    const nameEnd = buf.indexOf(0, at + 1);
    const name = buf.toString('utf8', at + 1, nameEnd);
    const valueAt = nameEnd + 1;
    yield { type, name, at: valueAt };
    const next = valueEnd(buf, type, valueAt);
    if (next === undefined) return;
    at = next;
  }
}

/** The command (its first key), the collection it names and the documents it carries, of one OP_MSG. */
export function commandOf(msg: Buffer): { command: string; collection: string; documents: number } | undefined {
  if (msg.length < 21 || msg.readInt32LE(12) !== OP_MSG) return undefined;
  let command: string | undefined;
  let collection = '';
  let documents = 0;
  const end = msg.readInt32LE(0) - ((msg.readUInt32LE(16) & 1) === 1 ? 4 : 0);
  let at = 20;
  while (at < end) {
    const kind = msg[at]!;
    if (kind === 0) {
      for (const e of elements(msg, at + 1)) {
        if (command === undefined) {
          command = e.name;
          if (e.type === 0x02) collection = msg.toString('utf8', e.at + 4, e.at + 4 + msg.readInt32LE(e.at) - 1);
        } else if (e.type === 0x04 && /^(?:documents|updates|deletes)$/.test(e.name)) {
          for (const _ of elements(msg, e.at)) documents++;
        }
      }
      at += 1 + msg.readInt32LE(at + 1);
    } else {
      // A document sequence: its size, its identifier, then documents up to the size.
      const size = msg.readInt32LE(at + 1);
      let doc = msg.indexOf(0, at + 5) + 1;
      while (doc < at + 1 + size) {
        documents++;
        doc += msg.readInt32LE(doc);
      }
      at += 1 + size;
    }
  }
  return command === undefined ? undefined : { command, collection, documents };
}

/** Splits a byte stream into whole wire messages (each starts with its length). */
class MessageSplitter {
  private pending: Buffer = Buffer.alloc(0);
  /** A length shorter than a header: not the wire protocol; the rest of the stream passes uncounted. */
  private lost = false;

  push(chunk: Buffer, onMessage: (msg: Buffer) => void): void {
    if (this.lost) return;
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 4) {
      const length = this.pending.readInt32LE(0);
      if (length < 16) {
        this.lost = true;
        this.pending = Buffer.alloc(0);
        return;
      }
      if (this.pending.length < length) return;
      onMessage(this.pending.subarray(0, length));
      this.pending = this.pending.subarray(length);
    }
  }
}

export interface CountingProxy {
  /** `mongodb://…` of the proxy, with the path and options of the server's URI. */
  readonly uri: string;
  /** Counts since the last `take`, by `command collection`, and starts again from zero. */
  take(): Map<string, RequestCount>;
  close(): Promise<void>;
}

/** Starts a proxy on a free local port in front of the server of `serverUri` (one host, no TLS). */
export async function startCountingProxy(serverUri: string): Promise<CountingProxy> {
  const m = /^mongodb:\/\/(?:[^@/]*@)?([^:/,?]+)(?::(\d+))?(.*)$/.exec(serverUri);
  if (!m) throw new Error(`a counting proxy needs a mongodb:// URI of one host, not ${serverUri}`);
  const [, host, port = '27017', rest] = m;
  let counts = new Map<string, RequestCount>();
  let times = new Map<string, number[]>();
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: host!, port: Number(port) });
    sockets.add(client).add(upstream);
    const splitter = new MessageSplitter();
    /** Requests of this connection waiting for their answer: requestID → key and start. */
    const waiting = new Map<number, { key: string; at: number }>();
    client.on('data', (chunk: Buffer) => {
      splitter.push(chunk, (msg) => {
        const c = commandOf(msg);
        if (!c) return;
        const key = `${c.command} ${c.collection}`.trim();
        const n = counts.get(key) ?? { requests: 0, documents: 0 };
        n.requests++;
        n.documents += c.documents;
        counts.set(key, n);
        waiting.set(msg.readInt32LE(4), { key, at: nowMs() });
      });
      upstream.write(chunk);
    });
    const answers = new MessageSplitter();
    upstream.on('data', (chunk: Buffer) =>
      answers.push(chunk, (msg) => {
        const responseTo = msg.readInt32LE(8);
        const request = waiting.get(responseTo);
        if (!request) return;
        waiting.delete(responseTo);
        const list = times.get(request.key);
        if (list) list.push(nowMs() - request.at);
        else times.set(request.key, [nowMs() - request.at]);
      }),
    );
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port: proxyPort } = server.address() as AddressInfo;
  return {
    uri: `mongodb://127.0.0.1:${proxyPort}${rest}`,
    take() {
      const out = counts;
      for (const [key, list] of times) {
        const n = out.get(key);
        if (!n || list.length === 0) continue;
        const sorted = list.sort((a, b) => a - b);
        n.ms = {
          p50: round(percentile(sorted, 50), 2),
          p99: round(percentile(sorted, 99), 2),
          max: round(sorted[sorted.length - 1]!, 2),
        };
      }
      counts = new Map();
      times = new Map();
      return out;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
