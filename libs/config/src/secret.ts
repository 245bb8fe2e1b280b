import 'reflect-metadata';

const SECRETS = Symbol('ctxledger:secret-variables');

export interface SecretOptions {
  /** Whether `<NAME>_FILE` may name a file holding the value instead (Docker / Kubernetes secrets). */
  readonly file?: boolean;
}

/**
 * Marks an environment variable as a secret: its value is never part of a validation message (nor of any
 * log line we write), and with `{ file: true }` it can be given as the path of a file in `<NAME>_FILE`.
 */
export function Secret(options: SecretOptions = {}): PropertyDecorator {
  return (target, property) => {
    const list = (Reflect.getMetadata(SECRETS, target) as Map<string, SecretOptions> | undefined) ?? new Map();
    const own = new Map(list);
    own.set(String(property), options);
    Reflect.defineMetadata(SECRETS, own, target);
  };
}

/** The secret variables of an environment class (its own and inherited ones), with their options. */
export function secretVariables(
  envClass: abstract new (...args: never[]) => object,
): ReadonlyMap<string, SecretOptions> {
  return (
    (Reflect.getMetadata(SECRETS, envClass.prototype as object) as Map<string, SecretOptions> | undefined) ?? new Map()
  );
}

/** `<NAME>_FILE` of a secret variable that accepts a file. */
export const fileVariant = (name: string) => `${name}_FILE`;
