/** DI token of the shared kafkajs client. */
export const KAFKA_CLIENT = Symbol('KAFKA_CLIENT');
/** DI token of the resolved Kafka settings (brokers, client id, topic names). */
export const KAFKA_SETTINGS = Symbol('KAFKA_SETTINGS');
