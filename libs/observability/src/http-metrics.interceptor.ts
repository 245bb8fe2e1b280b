import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Histogram, type Registry } from 'prom-client';
import type { Observable } from 'rxjs';
import { METRICS_REGISTRY } from './metrics.registry';

/** HTTP request duration by method, route template (never the raw URL) and status code. */
@Injectable()
export class HttpMetricsInterceptor implements NestInterceptor {
  private readonly duration: Histogram<'method' | 'route' | 'status'>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.duration = new Histogram({
      name: 'ctxledger_http_request_duration_seconds',
      help: 'HTTP request duration by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const req = http.getRequest<{ method: string; route?: { path?: string } }>();
    const res = http.getResponse<{ statusCode: number; once(event: 'finish', cb: () => void): void }>();
    const stop = this.duration.startTimer();
    // Observed when the response is sent, so statuses set by exception filters are the real ones.
    res.once('finish', () =>
      stop({ method: req.method, route: req.route?.path ?? 'unmatched', status: String(res.statusCode) }),
    );
    return next.handle();
  }
}
