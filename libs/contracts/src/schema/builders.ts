import { Type, type SchemaOptions, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { ID_PATTERN, LIMITS } from '../limits';

/**
 * Schema keywords of our own, beside JSON Schema's (registered with the validator in schema/validator.ts; left out
 * of the AsyncAPI document, whose `description`s say the same in words):
 * - `errorMessage`: the reason given, by failing keyword, instead of the default one (`{ pattern: '…' }`).
 * - `onlyOnRole` (on a property of a message): the property may only be set on messages of that role.
 * - `requiredOnRole` (on a message): `{ <role>: [<property>…] }` must be set on messages of that role.
 */
export const OWN_KEYWORDS = ['errorMessage', 'onlyOnRole', 'requiredOnRole'] as const;

/** A string of one of `values`: JSON Schema's `enum` (TypeBox's literal unions would be an `anyOf`). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** Any JSON object, its properties unchecked (kept whole: the decoder drops unknown properties only of schemas
 * that list theirs). */
export function AnyObject(options: SchemaOptions = {}): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>({ ...options, type: 'object' });
}

/** An id: session ids, tenants, client message ids. No operators, no dots, no spaces. */
export const Id = Type.String({
  title: 'Id',
  minLength: 1,
  maxLength: LIMITS.maxIdLength,
  pattern: ID_PATTERN.source,
  errorMessage: { pattern: 'may contain only letters, digits and _:@-' },
});

/** On a copy of a named schema with words of its own (IdWith): the schema it copies. */
export const COPY_OF = Symbol('copyOf');

/** The id with words of its own in the document (there: `$ref` to Id plus the description or default). */
export const IdWith = (options: SchemaOptions): typeof Id => ({ ...Id, ...options, [COPY_OF]: Id }) as typeof Id;

/** A non-empty string of at most `max` characters (an id that is not a key: any characters). */
export const Text = (min: number, max: number, options: SchemaOptions = {}) =>
  Type.String({ ...(min > 0 && { minLength: min }), maxLength: max, ...options });

export type { TSchema };
