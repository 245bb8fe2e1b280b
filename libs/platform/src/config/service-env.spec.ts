import { Test } from '@nestjs/testing';
import { kafkaEnv, type KafkaEnv } from '@ctxledger/kafka';
import { mongoEnv, type MongoEnv } from '@ctxledger/persistence';
import { BaseServiceEnv, SERVICE_ENV } from './base-env';
import { serviceConfigModule } from './service-env';

class TestEnv extends BaseServiceEnv {
  override PORT = 3999;
}

/** Runs `fn` with these variables in process.env, then puts process.env back as it was. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

describe('serviceConfigModule', () => {
  it('provides each part as a typed object under its token, and writes nothing to process.env', async () => {
    await withEnv({ KAFKA_BROKERS: 'k1:9092,k2:9092', MONGODB_URI: 'mongodb://m:27017/db' }, async () => {
      const before = { ...process.env };
      const module = await Test.createTestingModule({ imports: [serviceConfigModule(TestEnv)] }).compile();
      expect(module.get<TestEnv>(SERVICE_ENV)).toMatchObject({
        PORT: 3999,
        HOST: '127.0.0.1',
        HEALTH_TIMEOUT_MS: 3000,
      });
      expect(module.get<KafkaEnv>(kafkaEnv.KEY).KAFKA_BROKERS).toEqual(['k1:9092', 'k2:9092']);
      expect(module.get<MongoEnv>(mongoEnv.KEY).MONGODB_URI).toBe('mongodb://m:27017/db');
      expect(module.get(SERVICE_ENV)).toBeInstanceOf(TestEnv);
      expect(process.env).toEqual(before); // no defaults (PORT, TOPIC_PREFIX…) written back
      await module.close();
    });
  });

  it('refuses to boot with one message naming every bad variable of every part', async () => {
    await withEnv({ PORT: 'x', KAFKA_BROKERS: 'nope', MONGODB_URI: 'postgres://db' }, async () => {
      await expect(Test.createTestingModule({ imports: [serviceConfigModule(TestEnv)] }).compile()).rejects.toThrow(
        /Invalid configuration:\n(?=[\s\S]* {2}- PORT: )(?=[\s\S]* {2}- KAFKA_BROKERS: each broker must be host:port)(?=[\s\S]* {2}- MONGODB_URI: must be a mongodb)/,
      );
    });
  });
});
