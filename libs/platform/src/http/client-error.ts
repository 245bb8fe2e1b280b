import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** How long a connection refused before its request was parsed keeps reading what the client still sends. */
const CLIENT_ERROR_LINGER_MS = 2_000;

const ANSWERS: Record<string, { status: number; reason: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: `the request line and headers must fit in ${maxHeaderSize} bytes`,
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, reason: 'chunk extensions too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'the request was not received in time' },
};

/**
 * Answers a request Node's HTTP parser refused (oversized request line or headers, malformed request, timeout)
 * so that the client reads the answer.
 *
 * Node's own handler writes the answer and destroys the socket at once. A client still sending (a long URL
 * followed by a 4 MB body) then meets a reset, and the reset can reach it before the answer does: it sees
 * `ECONNRESET` instead of 431. Here the answer is written, the sending side closed (FIN), and whatever
 * the client still sends is read and dropped until it closes its side or `lingerMs` passes — the lingering
 * close of HTTP servers (RFC 9112 §9.6).
 */
export function answerClientErrors(server: Server, lingerMs = CLIENT_ERROR_LINGER_MS): void {
  // A response being written on the connection must not be corrupted by an error answer (pipelining).
  const inFlight = new WeakMap<Duplex, ServerResponse>();
  // The parser stays failed: every further chunk the client sends raises the same error again.
  const answered = new WeakSet<Duplex>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    inFlight.set(req.socket, res);
    res.once('finish', () => {
      if (inFlight.get(req.socket) === res) inFlight.delete(req.socket); // not a pipelined successor's entry
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight.get(socket)?.headersSent) {
      socket.destroy();
      return;
    }
    const known = error.code ? ANSWERS[error.code] : undefined;
    const status = known?.status ?? 400;
    const body = JSON.stringify({
      statusCode: status,
      message: known?.reason ?? `malformed HTTP request (${error.code ?? error.message})`,
      error: STATUS_CODES[status],
    });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.resume();
  });
}
