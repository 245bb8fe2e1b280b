import {
  Injectable,
  Logger,
  type CallHandler,
  type ExecutionContext,
  type LoggerService,
  type NestInterceptor,
} from '@nestjs/common';
import { ID_PATTERN, LIMITS } from '@ctxledger/contracts';
import {
  acceptCorrelationId,
  HTTP_CORRELATION_HEADERS,
  newCorrelationId,
  runWithCorrelation,
  type Correlation,
} from '@ctxledger/observability';
import { Observable } from 'rxjs';

/** The parts of Node's request and response the correlation needs (Express adds the rest). */
interface Request {
  method?: string;
  originalUrl?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
  params?: Record<string, unknown>;
  [CORRELATION]?: Correlation;
}
interface Response {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  once(event: 'finish' | 'close', listener: () => void): unknown;
}

const CORRELATION = Symbol('correlation');
/** Paths scraped or probed all the time: their access lines are `verbose`, not `log`. */
const QUIET_PATHS = new Set(['/health', '/metrics']);

/** The correlation id of a request: the first valid X-Request-Id / X-Correlation-Id, else a new one. */
export function requestCorrelationId(headers: Request['headers']): string {
  for (const name of HTTP_CORRELATION_HEADERS) {
    const id = acceptCorrelationId(headers[name]);
    if (id !== undefined) return id;
  }
  return newCorrelationId();
}

/**
 * Express middleware, first of the chain: gives the request its correlation id, echoes it in the
 * `X-Request-Id` and `X-Correlation-Id` response headers, runs the rest of the chain with it, and writes
 * one access line when the response is done (path without the query string, status, duration).
 */
export function correlationMiddleware(logger: LoggerService = new Logger('HTTP')) {
  return (req: Request, res: Response, next: () => void): void => {
    const correlation: Correlation = { correlationId: requestCorrelationId(req.headers) };
    req[CORRELATION] = correlation;
    res.setHeader('X-Request-Id', correlation.correlationId);
    res.setHeader('X-Correlation-Id', correlation.correlationId);
    const started = performance.now();
    let logged = false;
    const access = (event: 'finish' | 'close') => () => {
      if (logged) return;
      logged = true;
      const path = (req.originalUrl ?? req.url ?? '').split('?')[0] ?? '';
      const aborted = event === 'close' ? ' (connection closed before the response was sent)' : '';
      const line = `${req.method ?? '?'} ${path} ${res.statusCode} ${Math.round(performance.now() - started)} ms${aborted}`;
      runWithCorrelation(correlation, () => (QUIET_PATHS.has(path) ? logger.verbose?.(line) : logger.log(line)));
    };
    res.once('finish', access('finish'));
    res.once('close', access('close'));
    runWithCorrelation(correlation, next);
  };
}

/**
 * Re-enters the request's correlation around the handler (a body parser's stream callbacks lose the async
 * context the middleware set), and adds the route's `:sessionId` to it. HTTP only: Kafka records get
 * theirs from the transport.
 */
@Injectable()
export class CorrelationInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<Request>();
    const correlation = req[CORRELATION];
    if (!correlation) return next.handle();
    const sessionId = req.params?.sessionId;
    if (typeof sessionId === 'string' && sessionId.length <= LIMITS.maxIdLength && ID_PATTERN.test(sessionId)) {
      correlation.sessionId = sessionId;
    }
    return new Observable((subscriber) => runWithCorrelation(correlation, () => next.handle().subscribe(subscriber)));
  }
}
