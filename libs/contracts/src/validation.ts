import 'reflect-metadata';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';

/** Thrown by producers when an event they are about to send breaks its contract. */
export class ContractViolationError extends Error {
  constructor(readonly violations: readonly string[]) {
    super(violations.join('; '));
    this.name = 'ContractViolationError';
  }
}

/**
 * Converts a plain value to the contract class and validates it. Unknown properties are dropped
 * (newer producers may add fields); every violation is returned as `path: reason`.
 */
export function validateAs<T extends object>(
  cls: ClassConstructor<T>,
  plain: unknown,
  path: string,
): { value: T; violations: string[] } {
  const value = plainToInstance(cls, plain);
  const errors = validateSync(value as object, { whitelist: true, forbidUnknownValues: true });
  return { value, violations: flattenViolations(errors, path) };
}

/**
 * One `path: reason` per violation (`messages.1.content: must be a string`): the shape of dead-letter reasons
 * and of HTTP 400 bodies alike.
 */
export function flattenViolations(errors: readonly ValidationError[], path = ''): string[] {
  const out: string[] = [];
  for (const error of errors) {
    const here = path ? `${path}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) {
      // class-validator starts messages with the bare property name; show the full path instead.
      out.push(
        `${here}: ${message.startsWith(`${error.property} `) ? message.slice(error.property.length + 1) : message}`,
      );
    }
    out.push(...flattenViolations(error.children ?? [], here));
  }
  return out;
}
