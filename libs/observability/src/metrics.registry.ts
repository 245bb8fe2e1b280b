import { collectDefaultMetrics, Registry } from 'prom-client';

/** DI token of the service's Prometheus registry. */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

/** A registry per service (not prom-client's global one), with the default process metrics. */
export function createMetricsRegistry(serviceName: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: serviceName });
  collectDefaultMetrics({ register: registry });
  return registry;
}
