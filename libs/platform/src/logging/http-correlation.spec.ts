import { Body, Controller, Get, Logger, Module, Param, Post, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { currentCorrelation } from '@ctxledger/observability';
import { correlationMiddleware, CorrelationInterceptor, requestCorrelationId } from './http-correlation';
import { ServiceLogger } from './service-logger';

@Controller('v1/sessions/:sessionId')
class ProbeController {
  private readonly logger = new Logger('ProbeController');

  /** A JSON body goes through the body parser (whose stream callbacks lose the async context) before this runs. */
  @Post('messages')
  async append(@Param('sessionId') sessionId: string, @Body() body: { text: string }) {
    await new Promise((r) => setTimeout(r, 2));
    this.logger.log(`appending ${body.text.length} chars to ${sessionId}`);
    return { seen: { ...currentCorrelation() } };
  }

  @Get('boom')
  boom(): never {
    throw new Error('handler failed');
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('HTTP correlation (a real Nest HTTP app)', () => {
  let app: INestApplication;
  let url: string;
  const lines: Array<Record<string, unknown>> = [];
  let spies: jest.SpyInstance[] = [];

  beforeAll(async () => {
    spies = (['stdout', 'stderr'] as const).map((stream) =>
      jest.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
        for (const l of chunk.toString().split('\n')) {
          if (!l.startsWith('{')) continue;
          try {
            lines.push(JSON.parse(l) as Record<string, unknown>);
          } catch {
            // not ours
          }
        }
        return true;
      }),
    );
    app = await NestFactory.create(ProbeModule, { logger: new ServiceLogger('probe-service', { json: true }) });
    app.use(correlationMiddleware());
    app.useGlobalInterceptors(new CorrelationInterceptor());
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    await app.close();
    for (const spy of spies) spy.mockRestore();
  });

  const post = (headers: Record<string, string>) =>
    fetch(`${url}/v1/sessions/sess-1/messages?format=openai`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ text: 'hello' }),
    });
  const linesOf = (id: string) => lines.filter((l) => l.correlationId === id);
  const eventually = async (check: () => void) => {
    for (let i = 0; ; i++) {
      try {
        return check();
      } catch (error) {
        if (i > 50) throw error;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };

  it('takes a valid X-Request-Id, echoes it, and every line of the request carries it with the session id', async () => {
    const res = await post({ 'x-request-id': 'client-req-1' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('client-req-1');
    expect(res.headers.get('x-correlation-id')).toBe('client-req-1');
    // The handler ran in the request's context, after the body parser.
    expect(await res.json()).toEqual({ seen: { correlationId: 'client-req-1', sessionId: 'sess-1' } });
    await eventually(() =>
      expect(linesOf('client-req-1')).toEqual([
        expect.objectContaining({
          service: 'probe-service',
          context: 'ProbeController',
          message: 'appending 5 chars to sess-1',
          sessionId: 'sess-1',
        }),
        // The access line: no query string.
        expect.objectContaining({
          level: 'log',
          context: 'HTTP',
          message: expect.stringMatching(/^POST \/v1\/sessions\/sess-1\/messages 201 \d+ ms$/),
          sessionId: 'sess-1',
        }),
      ]),
    );
  });

  it('takes X-Correlation-Id when there is no X-Request-Id', async () => {
    const res = await post({ 'x-correlation-id': 'upstream-77' });
    expect(res.headers.get('x-request-id')).toBe('upstream-77');
    expect(((await res.json()) as { seen: { correlationId: string } }).seen.correlationId).toBe('upstream-77');
  });

  it('replaces an unusable id by a generated one (no log injection), and generates one when none is given', async () => {
    const cases: Array<Record<string, string>> = [
      { 'x-request-id': 'evil", "level": "error' },
      { 'x-request-id': 'x'.repeat(129) },
      {},
    ];
    for (const headers of cases) {
      const res = await post(headers);
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(((await res.json()) as { seen: { correlationId: string } }).seen.correlationId).toBe(id);
    }
  });

  it('an error inside the handler is logged with the request id', async () => {
    const res = await fetch(`${url}/v1/sessions/sess-2/boom`, { headers: { 'x-request-id': 'failing-1' } });
    expect(res.status).toBe(500);
    await eventually(() => {
      const logged = linesOf('failing-1');
      expect(logged).toContainEqual(expect.objectContaining({ level: 'error', sessionId: 'sess-2' }));
      expect(logged).toContainEqual(
        expect.objectContaining({
          context: 'HTTP',
          message: expect.stringMatching(/^GET \/v1\/sessions\/sess-2\/boom 500/),
        }),
      );
    });
  });

  it('requestCorrelationId: the first valid header wins', () => {
    expect(requestCorrelationId({ 'x-request-id': 'bad id', 'x-correlation-id': 'good-id' })).toBe('good-id');
    expect(requestCorrelationId({ 'x-request-id': ['a-1', 'b-2'] })).toBe('a-1');
  });
});
