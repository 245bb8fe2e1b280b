export * from './metrics.registry';
export * from './observability.module';
