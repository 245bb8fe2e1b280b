export * from './kafka.tokens';
export * from './kafka-settings';
export * from './kafka.module';
export * from './kafka-health.indicator';
export * from './topic-admin';
export * from './transport/kafka-event.context';
export * from './transport/kafka-event.transport';
export * from './transport/partition-guard';
