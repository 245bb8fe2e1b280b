export * from './metrics.registry';
export * from './observability.module';
export * from './consumer.metrics';
export * from './correlation';
