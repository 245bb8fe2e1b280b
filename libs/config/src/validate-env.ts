import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import { isCrossChecked, isSet } from './env-rules';
import { fileVariant, secretVariables } from './secret';

/** Environment classes by name: the parts of a service's configuration (e.g. `{ service, kafka, mongo }`). */
export type EnvClasses = Record<string, ClassConstructor<object>>;
/** The validated instance of each part. */
export type ValidatedEnvs<P extends EnvClasses> = { readonly [K in keyof P]: InstanceType<P[K]> };

/**
 * Builds the `validate` function of `@nestjs/config` for one environment class: the environment is converted
 * to the class and validated at boot, and a bad or missing variable stops the process with a message naming it.
 * Secret variables (`@Secret()`) are read from `<NAME>_FILE` when that is given, and their values never
 * appear in a message; credentials inside a URI are masked too.
 */
export function validateEnv<T extends object>(envClass: ClassConstructor<T>): (raw: Record<string, unknown>) => T {
  const validate = validateEnvs({ env: envClass });
  return (raw) => validate(raw).env;
}

/**
 * The same for several classes read from one environment (each library's variables and the service's own):
 * every part is validated, and one error lists every bad variable of all of them.
 */
export function validateEnvs<P extends EnvClasses>(parts: P): (raw: Record<string, unknown>) => ValidatedEnvs<P> {
  return (raw) => {
    const problems: string[] = [];
    const validated: Record<string, object> = {};
    for (const [name, envClass] of Object.entries(parts)) {
      const part = convert(envClass, raw);
      problems.push(...part.problems);
      validated[name] = part.env;
    }
    if (problems.length > 0) {
      throw new Error(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    }
    return validated as ValidatedEnvs<P>;
  };
}

function convert<T extends object>(envClass: ClassConstructor<T>, raw: Record<string, unknown>) {
  const secrets = secretVariables(envClass);
  const problems: string[] = [];
  // Only the class's own variables: a part never carries another's (a Kafka setting holds no LLM key).
  const input: Record<string, unknown> = {};
  for (const name of declaredVariables(envClass)) if (name in raw) input[name] = raw[name];
  for (const [name, options] of secrets) {
    const file = fileVariant(name);
    if (!options.file || !isSet(raw[file])) continue;
    if (isSet(raw[name])) {
      problems.push(`${name}: set it or ${file}, not both`);
      continue;
    }
    try {
      input[name] = readFileSync(String(raw[file]), 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      problems.push(`${file}: cannot read ${JSON.stringify(raw[file])} (${(error as NodeJS.ErrnoException).code})`);
    }
  }
  const env = plainToInstance(envClass, input, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(env, { whitelist: false, forbidUnknownValues: true });
  problems.push(...errors.map((e) => describeError(e, secrets.has(e.property))));
  if (errors.length === 0 && isCrossChecked(env)) problems.push(...env.crossCheck());
  return { env, problems };
}

/** The variables an environment class declares: every one carries at least one validation decorator. */
function declaredVariables(envClass: ClassConstructor<object>): Set<string> {
  return new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(envClass, '', true, false)
      .map((m) => m.propertyName),
  );
}

function describeError(error: ValidationError, secret: boolean): string {
  const reasons = Object.values(error.constraints ?? {}).join('; ');
  const got =
    error.value === undefined ? 'it is not set' : secret ? 'value hidden: it is a secret' : `got ${shown(error.value)}`;
  return `${error.property}: ${reasons} (${got})`;
}

/**
 * The value as JSON, with the password of anything shaped like `user:password@` masked (a URI's
 * credentials, also in a malformed URI).
 */
function shown(value: unknown): string {
  return JSON.stringify(value).replace(/((?:[a-z][a-z0-9+.-]*:\/*)?[^\s"/:@]*):[^\s"@]*@/gi, '$1:***@');
}
