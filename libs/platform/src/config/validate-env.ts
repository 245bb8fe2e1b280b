import 'reflect-metadata';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';

/**
 * Builds the `validate` function of `@nestjs/config`: the environment is converted to the given class
 * and validated at boot, and a bad or missing variable stops the process with a message naming it.
 */
export function validateEnv<T extends object>(envClass: ClassConstructor<T>) {
  return (raw: Record<string, unknown>): T => {
    const env = plainToInstance(envClass, raw, { enableImplicitConversion: true, exposeDefaultValues: true });
    const errors = validateSync(env, { whitelist: false, forbidUnknownValues: true });
    if (errors.length > 0) {
      throw new Error(`Invalid configuration:\n${errors.map(describeError).join('\n')}`);
    }
    return env;
  };
}

function describeError(error: ValidationError): string {
  const reasons = Object.values(error.constraints ?? {}).join('; ');
  const got = error.value === undefined ? 'it is not set' : `got ${JSON.stringify(error.value)}`;
  return `  - ${error.property}: ${reasons} (${got})`;
}
