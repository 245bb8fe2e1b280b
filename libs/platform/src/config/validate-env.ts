import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { isCrossChecked, isSet } from './env-rules';
import { fileVariant, secretVariables } from './secret';

/**
 * Builds the `validate` function of `@nestjs/config`: the environment is converted to the given class
 * and validated at boot, and a bad or missing variable stops the process with a message naming it.
 * Secret variables (`@Secret()`) are read from `<NAME>_FILE` when that is given, and their values never
 * appear in a message; credentials inside a URI are masked too.
 */
export function validateEnv<T extends object>(envClass: ClassConstructor<T>) {
  const secrets = secretVariables(envClass);
  return (raw: Record<string, unknown>): T => {
    const problems: string[] = [];
    const input: Record<string, unknown> = { ...raw };
    for (const [name, options] of secrets) {
      const file = fileVariant(name);
      if (!options.file || !isSet(raw[file])) continue;
      if (isSet(raw[name])) {
        problems.push(`  - ${name}: set it or ${file}, not both`);
        continue;
      }
      try {
        input[name] = readFileSync(String(raw[file]), 'utf8').replace(/\r?\n$/, '');
      } catch (error) {
        problems.push(
          `  - ${file}: cannot read ${JSON.stringify(raw[file])} (${(error as NodeJS.ErrnoException).code})`,
        );
      }
    }
    const env = plainToInstance(envClass, input, { enableImplicitConversion: true, exposeDefaultValues: true });
    const errors = validateSync(env, { whitelist: false, forbidUnknownValues: true });
    problems.push(...errors.map((e) => describeError(e, secrets.has(e.property))));
    if (errors.length === 0 && isCrossChecked(env)) problems.push(...env.crossCheck().map((p) => `  - ${p}`));
    if (problems.length > 0) {
      throw new Error(`Invalid configuration:\n${problems.join('\n')}`);
    }
    return env;
  };
}

function describeError(error: ValidationError, secret: boolean): string {
  const reasons = Object.values(error.constraints ?? {}).join('; ');
  const got =
    error.value === undefined ? 'it is not set' : secret ? 'value hidden: it is a secret' : `got ${shown(error.value)}`;
  return `  - ${error.property}: ${reasons} (${got})`;
}

/**
 * The value as JSON, with the password of anything shaped like `user:password@` masked (a URI's
 * credentials, also in a malformed URI).
 */
function shown(value: unknown): string {
  return JSON.stringify(value).replace(/((?:[a-z][a-z0-9+.-]*:\/*)?[^\s"/:@]*):[^\s"@]*@/gi, '$1:***@');
}
