import { getConfigToken } from '@nestjs/config';
import type { ClassConstructor } from 'class-transformer';

/**
 * The environment variables a library (or a service) owns: a class validated at boot (class-validator), and
 * the token under which `@nestjs/config` provides its validated instance. A consumer injects the typed object,
 * `@Inject(kafkaEnv.KEY) env: KafkaEnv`, never a variable by its name.
 */
export interface EnvNamespace<T extends object> {
  /** The namespace in `@nestjs/config` (`registerAs`). */
  readonly namespace: string;
  readonly envClass: ClassConstructor<T>;
  /** DI token of the validated instance. */
  readonly KEY: string;
}

export function envNamespace<T extends object>(namespace: string, envClass: ClassConstructor<T>): EnvNamespace<T> {
  return { namespace, envClass, KEY: getConfigToken(namespace) };
}
