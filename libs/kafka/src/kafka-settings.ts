import { topicNames, type TopicNames } from '@ctxledger/contracts';

export interface KafkaSettings {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly topics: TopicNames;
  readonly topicPrefix: string;
}

export function kafkaSettings(input: {
  brokers: readonly string[];
  clientId: string;
  topicPrefix: string;
}): KafkaSettings {
  return { ...input, topics: topicNames(input.topicPrefix) };
}
