import { accessSync, constants, statSync } from 'node:fs';
import { Transform } from 'class-transformer';
import { registerDecorator, type ValidationOptions } from 'class-validator';

/**
 * `true`/`false` (also `1`/`0`, `yes`/`no`, any case) to a boolean. Anything else stays as it was and
 * fails the `@IsBoolean()` next to it, so a typo such as `KAFKA_SSL=ture` stops the boot instead of
 * silently meaning false.
 */
export const ToBoolean = () =>
  // From the raw object: implicit conversion would already have made any non-empty string `true`.
  Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const value = obj[key];
    if (typeof value !== 'string') return value;
    const v = value.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(v)) return true;
    if (['false', '0', 'no', ''].includes(v)) return false;
    return value;
  });

/** A PEM given inline in a variable: `\n` written as two characters (common in .env files) become newlines. */
export const ToPem = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.replace(/\\n/g, '\n') : value));

/** The variable names a regular file this process can read. The message names the path, never the content. */
export function IsReadableFile(options?: ValidationOptions): PropertyDecorator {
  return (target, property) =>
    registerDecorator({
      name: 'isReadableFile',
      target: target.constructor,
      propertyName: String(property),
      options: { message: 'must be the path of a readable file', ...options },
      validator: {
        validate(value: unknown) {
          if (typeof value !== 'string' || value === '') return false;
          try {
            accessSync(value, constants.R_OK);
            return statSync(value).isFile();
          } catch {
            return false;
          }
        },
      },
    });
}

/**
 * An environment class may check rules between variables (e.g. a SASL mechanism needs a user name): it
 * returns one `NAME: reason` per problem, naming variables, never their values.
 */
export interface CrossChecked {
  crossCheck(): string[];
}

export const isCrossChecked = (env: object): env is CrossChecked =>
  typeof (env as Partial<CrossChecked>).crossCheck === 'function';

/** Whether a variable counts as set (an empty value does not). */
export const isSet = (value: unknown): boolean => value !== undefined && value !== null && value !== '';
