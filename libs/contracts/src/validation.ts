import type { ValidationError } from 'class-validator';

/** Thrown by producers when an event they are about to send breaks its contract. */
export class ContractViolationError extends Error {
  constructor(readonly violations: readonly string[]) {
    super(violations.join('; '));
    this.name = 'ContractViolationError';
  }
}

/**
 * One `path: reason` per violation of an HTTP body checked with class-validator (`messages.1.content: must be a
 * string`): the shape of the Kafka codec's reasons (schema/validator.ts) and of dead-letter reasons alike.
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
