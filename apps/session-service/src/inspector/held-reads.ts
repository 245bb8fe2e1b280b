import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** A read that waits for a write (`?after=`): the session inspector keeps one open per live page. */
export const isHeldRead = (req: Pick<IncomingMessage, 'method' | 'url'>): boolean =>
  req.method === 'GET' && /[?&]after=/.test(req.url ?? '');

/**
 * Lets the service stop while pages hold reads open. A live inspector page always has one `GET …?after=`
 * waiting (up to its waitMs) on a kept-alive connection, and asks again as soon as it is answered: the HTTP
 * server's close would wait for that connection forever. At shutdown, the held reads are cut (they only
 * read: the page asks again, elsewhere), every other request in flight is answered with `Connection: close`,
 * and idle connections are closed.
 */
@Injectable()
export class HeldReadsOnShutdown implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('Inspector');
  private readonly inFlight = new Set<{ req: IncomingMessage; res: ServerResponse }>();
  private closing = false;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    // A listener of the server itself (beside the app's): it sees every request, whatever route answers it.
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.closing) {
        if (!res.headersSent) res.setHeader('Connection', 'close');
        return;
      }
      const entry = { req, res };
      this.inFlight.add(entry);
      res.once('close', () => this.inFlight.delete(entry));
    });
  }

  beforeApplicationShutdown(): void {
    this.closing = true;
    let cut = 0;
    for (const { req, res } of this.inFlight) {
      if (isHeldRead(req)) {
        res.destroy();
        cut++;
      } else if (!res.headersSent) res.setHeader('Connection', 'close');
    }
    (this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined)?.closeIdleConnections?.();
    if (cut > 0) this.logger.log(`shutting down: ${cut} held read(s) (?after=) cut`);
  }
}
