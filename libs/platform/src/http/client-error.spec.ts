import { createServer, maxHeaderSize, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { answerClientErrors } from './client-error';

/** What a raw client saw: the bytes answered, whether its writes failed, and how the connection ended. */
interface Seen {
  answer: string;
  writeError?: string;
  ended: boolean;
  closedAfterMs: number;
}

/**
 * Sends `head`, then once the answer's first bytes arrive keeps sending `after` more bytes in 16 KB chunks,
 * as a client uploading a body does when the server refused its request line: the server closing its side
 * does not stop it. It closes its own side when all is sent.
 */
function send(port: number, head: string, after: number): Promise<Seen> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const seen: Seen = { answer: '', ended: false, closedAfterMs: 0 };
    let sending = false;
    const chunk = Buffer.alloc(16 * 1024, 'y');
    const keepSending = (left: number) => {
      if (socket.destroyed) return;
      if (left <= 0) return void socket.end();
      socket.write(chunk, () => setTimeout(() => keepSending(left - chunk.length), 1));
    };
    socket.on('data', (data) => {
      seen.answer += data.toString('latin1');
      if (!sending) {
        sending = true;
        keepSending(after);
      }
    });
    socket.on('end', () => (seen.ended = true));
    socket.on('error', (error: NodeJS.ErrnoException) => (seen.writeError ??= error.code ?? error.message));
    socket.on('close', () => resolve({ ...seen, closedAfterMs: Date.now() - started }));
    socket.write(head);
  });
}

describe('answerClientErrors: requests the HTTP parser refuses are answered, and the answer is read', () => {
  let server: Server;
  let port: number;
  const LINGER_MS = 300;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    answerClientErrors(server, LINGER_MS);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a request line over the header limit: 431 naming the limit, and the client may go on sending until it closes', async () => {
    const head =
      `POST /v1/sessions/${'a'.repeat(20_000)}/messages HTTP/1.1\r\nHost: x\r\n` +
      'Content-Type: application/json\r\nContent-Length: 4500000\r\n\r\n';
    const seen = await send(port, head, 512 * 1024);
    expect(seen.answer).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(seen.answer).toContain('Connection: close');
    const body = JSON.parse(seen.answer.slice(seen.answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toEqual({
      statusCode: 431,
      message: `the request line and headers must fit in ${maxHeaderSize} bytes`,
      error: 'Request Header Fields Too Large',
    });
    // Node's own handler destroys the socket at once: these writes would meet a reset (ECONNRESET / EPIPE).
    expect(seen.writeError).toBeUndefined();
    expect(seen.ended).toBe(true);
  });

  it('a malformed request: 400 with the parser error named', async () => {
    const seen = await send(port, 'GET / HTTP/1.1\r\nHost x\r\n\r\n', 0);
    expect(seen.answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(seen.answer).toMatch(/"message":"malformed HTTP request \(HPE_[A-Z_]+\)"/);
    expect(seen.writeError).toBeUndefined();
  });

  it('lingers for a bounded time: a client that never stops sending is cut off', async () => {
    const head = `GET /${'b'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`;
    const seen = await send(port, head, 1024 * 1024 * 1024);
    expect(seen.answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(seen.ended).toBe(true);
    expect(seen.closedAfterMs).toBeGreaterThanOrEqual(LINGER_MS - 50);
    expect(seen.closedAfterMs).toBeLessThan(LINGER_MS + 5_000);
  });

  it('the connection of a good request is not touched', async () => {
    const seen = await send(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 0);
    expect(seen.answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nok$/);
  });
});
