import { ConfigModule, registerAs } from '@nestjs/config';
import type { ClassConstructor } from 'class-transformer';
import { validateEnvs, type ValidatedEnvs } from '@ctxledger/config';
import { KafkaEnv, kafkaEnv } from '@ctxledger/kafka';
import { MongoEnv, mongoEnv } from '@ctxledger/persistence';
import { SERVICE_ENV_NAMESPACE, type BaseServiceEnv } from './base-env';

/** The parts of a service's environment: its own variables, Kafka's (libs/kafka) and MongoDB's (libs/persistence). */
export const serviceEnvParts = <E extends BaseServiceEnv>(env: ClassConstructor<E>) => ({
  service: env,
  kafka: KafkaEnv,
  mongo: MongoEnv,
});

export type ServiceEnvs<E extends BaseServiceEnv> = ValidatedEnvs<ReturnType<typeof serviceEnvParts<E>>>;

/** Validates a service's whole environment: one error lists every bad variable of every part. */
export const validateServiceEnv = <E extends BaseServiceEnv>(
  env: ClassConstructor<E>,
): ((raw: Record<string, unknown>) => ServiceEnvs<E>) => validateEnvs(serviceEnvParts(env));

/**
 * `@nestjs/config` for a service: the environment validated once at boot (every part at once, one message naming
 * each bad variable), then each part provided as a typed namespace (SERVICE_ENV, kafkaEnv.KEY, mongoEnv.KEY).
 * Nothing is written back to `process.env`: the validated parts are objects, which ConfigModule leaves alone.
 */
export function serviceConfigModule<E extends BaseServiceEnv>(env: ClassConstructor<E>) {
  const validate = validateServiceEnv(env);
  let validated: ServiceEnvs<E> | undefined;
  const part = <K extends keyof ServiceEnvs<E>>(namespace: string, name: K) =>
    registerAs(namespace, (): ServiceEnvs<E>[K] => {
      if (!validated) throw new Error('the environment was not validated');
      return validated[name];
    });
  return ConfigModule.forRoot({
    isGlobal: true,
    ignoreEnvFile: true,
    cache: true,
    validate: (raw) => (validated = validate(raw)),
    load: [
      part(SERVICE_ENV_NAMESPACE, 'service'),
      part(kafkaEnv.namespace, 'kafka'),
      part(mongoEnv.namespace, 'mongo'),
    ],
  });
}
