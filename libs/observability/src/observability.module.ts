import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { ConsumerMetrics } from './consumer.metrics';
import { HttpMetricsInterceptor } from './http-metrics.interceptor';
import { MetricsController } from './metrics.controller';
import { createMetricsRegistry, METRICS_REGISTRY } from './metrics.registry';

/** Prometheus metrics: `GET /metrics`, default process metrics, HTTP durations. */
@Global()
@Module({})
export class ObservabilityModule {
  static forService(serviceName: string): DynamicModule {
    return {
      module: ObservabilityModule,
      controllers: [MetricsController],
      providers: [
        { provide: METRICS_REGISTRY, useFactory: () => createMetricsRegistry(serviceName) },
        { provide: APP_INTERCEPTOR, useClass: HttpMetricsInterceptor },
        ConsumerMetrics,
      ],
      exports: [METRICS_REGISTRY, ConsumerMetrics],
    };
  }
}
