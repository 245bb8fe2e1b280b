import type { HttpAdapterHost } from '@nestjs/core';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeldReadsOnShutdown, isHeldRead } from './held-reads';

/** A server that answers `?after=` reads after `holdMs` (as a read waiting for a write does), others at once. */
function serve(holdMs: number): Server {
  return createServer((req, res) => {
    const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (isHeldRead(req)) setTimeout(answer, holdMs).unref();
    else answer();
  });
}

/** A client that keeps a held read open at all times on one kept-alive connection, as a live page does. */
function holdReads(port: number) {
  let stopped = false;
  let answered = 0;
  let failed = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const loop = () => {
    if (stopped) return;
    request({ port, path: '/v1/sessions/s/stats?after=7&waitMs=20000', agent }, (res) => {
      res.resume().once('end', () => (answered++, loop()));
    })
      .once('error', () => (failed++, setTimeout(loop, 50)))
      .end();
  };
  loop();
  return {
    counts: () => ({ answered, failed }),
    stop: () => ((stopped = true), agent.destroy()),
  };
}

const listening = (server: Server) =>
  new Promise<number>((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));
const closed = (server: Server, ms: number) =>
  Promise.race([
    new Promise<boolean>((done) => server.close(() => done(true))),
    new Promise<boolean>((done) => setTimeout(() => done(false), ms).unref()),
  ]);

describe('HeldReadsOnShutdown', () => {
  it('tells the reads that wait for a write (?after=) from the others', () => {
    expect(isHeldRead({ method: 'GET', url: '/v1/sessions/s/stats?after=12&waitMs=20000' })).toBe(true);
    expect(isHeldRead({ method: 'GET', url: '/v1/sessions/s/history?view=effective&after=3' })).toBe(true);
    expect(isHeldRead({ method: 'GET', url: '/v1/sessions/s/stats' })).toBe(false);
    expect(isHeldRead({ method: 'GET', url: '/v1/sessions/after=1/stats' })).toBe(false);
    expect(isHeldRead({ method: 'POST', url: '/v1/sessions/s/messages?after=1' })).toBe(false);
  });

  it('lets the server close while a client keeps a held read open (it would wait for it forever)', async () => {
    // Without it: the server's close never completes (checked here, as the reason it exists). (Its read held longer
    // than the wait: a close between two reads finds the connection idle and completes — a CI run saw it, under load.)
    const bare = serve(5_000);
    const client0 = holdReads(await listening(bare));
    await new Promise((r) => setTimeout(r, 700));
    expect(await closed(bare, 1500)).toBe(false);
    client0.stop();
    bare.closeAllConnections();

    // With it: the held read is cut at shutdown, the next requests are told to close, the server closes.
    const server = serve(300);
    const held = new HeldReadsOnShutdown({
      httpAdapter: { getHttpServer: () => server },
    } as unknown as HttpAdapterHost);
    held.onModuleInit();
    const client = holdReads(await listening(server));
    await new Promise((r) => setTimeout(r, 700));
    expect(client.counts().answered).toBeGreaterThan(0);
    held.beforeApplicationShutdown();
    const started = Date.now();
    expect(await closed(server, 5000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    client.stop();
  });
});
