import { Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import type { TestingModuleBuilder } from '@nestjs/testing';
import { Registry } from 'prom-client';
import { KAFKA_CLIENT, KAFKA_SETTINGS } from '@ctxledger/kafka';
import { METRICS_REGISTRY } from '@ctxledger/observability';
import { SERVICE_ENV } from '@ctxledger/platform';
import { IDEMPOTENCY_KEYS } from '../commands/idempotency-keys';
import { SESSION_EVENT_PUBLISHER } from '../commands/session-event-publisher';
import { InMemoryIdempotencyKeys } from '../commands/testing/in-memory-idempotency-keys';
import { InMemorySessionEventPublisher } from '../commands/testing/in-memory-session-event-publisher';
import { SessionServiceEnv } from '../config/session-service.env';
import { READ_MODEL_PROJECTION } from '../read-models/read-model.projection';
import { READ_MODEL_READS } from '../read-models/read-model.reads';
import { ReadModelStore } from '../read-models/read-model.store';
import { InMemoryReadModel } from '../read-models/testing/in-memory-read-model';

/**
 * Wiring tests of the service's Nest modules without Kafka or MongoDB: the real modules, with every port bound
 * to its in-memory adapter and the platform's providers (config, metrics registry, Kafka client) stood in for.
 */
export interface InMemoryAdapters {
  readonly readModel: InMemoryReadModel;
  readonly publisher: InMemorySessionEventPublisher;
  readonly keys: InMemoryIdempotencyKeys;
}

export function inMemoryAdapters(): InMemoryAdapters {
  return {
    readModel: new InMemoryReadModel(),
    publisher: new InMemorySessionEventPublisher(),
    keys: new InMemoryIdempotencyKeys(),
  };
}

/** The service's environment as a local test runs it: no authentication (X-Tenant), no rate limit. */
export function testEnv(overrides: Partial<SessionServiceEnv> = {}): SessionServiceEnv {
  return Object.assign(new SessionServiceEnv(), {
    HOST: '127.0.0.1',
    AUTH_MODE: 'none',
    RATE_LIMIT_REQUESTS: 0,
    ...overrides,
  });
}

@Module({})
class TestPlatformModule {}

/** What PlatformModule provides that the modules under test inject, global as there. */
export function testPlatform(env: SessionServiceEnv = testEnv()): DynamicModule {
  const providers = [
    { provide: SERVICE_ENV, useValue: env },
    { provide: METRICS_REGISTRY, useValue: new Registry() },
    // Only a /metrics scrape would use them (the projector's lag); nothing here does.
    { provide: KAFKA_CLIENT, useValue: {} },
    { provide: KAFKA_SETTINGS, useValue: { topicPrefix: 'test' } },
  ];
  return {
    module: TestPlatformModule,
    global: true,
    providers,
    exports: providers.map((p) => p.provide),
  };
}

/** Fails any use of the MongoDB store: in these tests everything goes through the ports. */
const NO_MONGODB = new Proxy(
  {},
  {
    get(_target, property) {
      // Nest looks for lifecycle hooks on every provider: only the store's own members fail.
      if (!['db', 'sessions', 'messages', 'blocks', 'blockHeads'].includes(String(property))) return undefined;
      throw new Error(`ReadModelStore.${String(property)}: no MongoDB in this test; use a port`);
    },
  },
);

/** Binds every port of the modules under test to its in-memory adapter. */
export function withInMemoryAdapters(builder: TestingModuleBuilder, adapters: InMemoryAdapters): TestingModuleBuilder {
  return builder
    .overrideProvider(ReadModelStore)
    .useValue(NO_MONGODB)
    .overrideProvider(READ_MODEL_READS)
    .useValue(adapters.readModel)
    .overrideProvider(READ_MODEL_PROJECTION)
    .useValue(adapters.readModel)
    .overrideProvider(SESSION_EVENT_PUBLISHER)
    .useValue(adapters.publisher)
    .overrideProvider(IDEMPOTENCY_KEYS)
    .useValue(adapters.keys);
}

/** Starts the HTTP app on a free loopback port; the base URL. */
export async function listen(app: INestApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}
