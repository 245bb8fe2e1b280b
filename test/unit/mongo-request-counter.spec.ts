import { createConnection, createServer, type AddressInfo } from 'node:net';
import fc from 'fast-check';
import { mongo } from 'mongoose';
import { commandOf, startCountingProxy } from '../../bench/mongo-request-counter';

const { BSON } = mongo;

/** An OP_MSG: header, flags, a body section, document sequences, and a checksum when `checksum`. */
function opMsg(body: object, sequences: { id: string; docs: object[] }[] = [], checksum = false): Buffer {
  const sections = [Buffer.concat([Buffer.from([0]), Buffer.from(BSON.serialize(body))])];
  for (const s of sequences) {
    const payload = Buffer.concat([Buffer.from(`${s.id}\0`), ...s.docs.map((d) => Buffer.from(BSON.serialize(d)))]);
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + payload.length);
    sections.push(Buffer.concat([Buffer.from([1]), size, payload]));
  }
  const header = Buffer.alloc(20);
  const length = 20 + sections.reduce((n, s) => n + s.length, 0) + (checksum ? 4 : 0);
  header.writeInt32LE(length, 0);
  header.writeInt32LE(7, 4);
  header.writeInt32LE(0, 8);
  header.writeInt32LE(2013, 12);
  header.writeUInt32LE(checksum ? 1 : 0, 16);
  return Buffer.concat([header, ...sections, ...(checksum ? [Buffer.alloc(4)] : [])]);
}

describe('commandOf (the counting proxy reads a request)', () => {
  it('names the command, its collection and the documents it carries, wherever they are', () => {
    expect(commandOf(opMsg({ insert: 'msgs', ordered: false, documents: [{ a: 1 }, { b: 'x' }], $db: 'd' }))).toEqual({
      command: 'insert',
      collection: 'msgs',
      documents: 2,
    });
    const updates = [1, 2, 3].map((i) => ({
      q: { _id: `s${i}`, lastOffset: i },
      u: { $set: { v: 1.5, at: new Date() } },
    }));
    expect(commandOf(opMsg({ update: 'sessions', updates, ordered: false, $db: 'd' }))).toEqual({
      command: 'update',
      collection: 'sessions',
      documents: 3,
    });
    expect(commandOf(opMsg({ find: 'blocks', filter: { _id: 'x' }, limit: 1, $db: 'd' }))).toEqual({
      command: 'find',
      collection: 'blocks',
      documents: 0,
    });
    // Documents in a sequence section, and a checksum after the sections.
    expect(
      commandOf(opMsg({ insert: 'msgs', $db: 'd' }, [{ id: 'documents', docs: [{ a: 1 }, { a: 2 }, { a: 3 }] }], true)),
    ).toEqual({ command: 'insert', collection: 'msgs', documents: 3 });
    // A command whose first value is not a collection.
    expect(commandOf(opMsg({ hello: 1, $db: 'admin' }))).toEqual({ command: 'hello', collection: '', documents: 0 });
  });

  it('is not fooled by values of any BSON type before the documents', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.jsonValue()),
        fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { maxLength: 20 }),
        fc.boolean(),
        (extra, documents, checksum) => {
          const rest = Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'documents' && k !== 'insert'));
          const body = {
            insert: 'c',
            bin: new BSON.Binary(Buffer.from('xyz')),
            id: new BSON.ObjectId(),
            big: BSON.Long.fromNumber(2 ** 40),
            when: new Date(0),
            ...rest,
            documents,
          };
          expect(commandOf(opMsg(body, [], checksum))).toEqual({
            command: 'insert',
            collection: 'c',
            documents: documents.length,
          });
        },
      ),
    );
  });

  it('passes over what is not an OP_MSG', () => {
    const legacy = opMsg({ insert: 'c', documents: [] });
    legacy.writeInt32LE(2004, 12); // OP_QUERY
    expect(commandOf(legacy)).toBeUndefined();
  });

  it('passes a stream that is not the wire protocol through, uncounted (a zero length does not stall it)', async () => {
    const echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const proxy = await startCountingProxy(`mongodb://127.0.0.1:${(echo.address() as AddressInfo).port}/db`);
    try {
      const port = Number(/:(\d+)\//.exec(proxy.uri)![1]);
      const client = createConnection({ host: '127.0.0.1', port });
      const sent = Buffer.concat([Buffer.alloc(8), Buffer.from('not a request'), opMsg({ find: 'c', $db: 'd' })]);
      const received: Buffer[] = [];
      await new Promise<void>((resolve) => {
        client.on('data', (chunk: Buffer) => {
          received.push(chunk);
          if (Buffer.concat(received).length >= sent.length) resolve();
        });
        client.write(sent);
      });
      client.destroy();
      expect(Buffer.concat(received).equals(sent)).toBe(true);
      expect(proxy.take().size).toBe(0);
    } finally {
      await proxy.close();
      await new Promise<void>((r) => echo.close(() => r()));
    }
  });
});
