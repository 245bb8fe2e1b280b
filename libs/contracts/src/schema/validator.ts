import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { isISO8601 } from 'class-validator';

/**
 * The validators of Kafka records, compiled from the event schemas with ajv: each schema once per process, on first
 * use. Two modes:
 * - `decode` drops the properties a schema does not list (newer producers may add fields; consumers see only what
 *   the contract names) and optional properties that are `null` (a producer's way of leaving them out), in place, on
 *   a value the decoder owns;
 * - `check` leaves the value as it is (producers' events are checked, then sent unchanged).
 * Every violation comes back as `path: reason` (`data.toolCalls.0.id: must be a string`), in the words the
 * class-validator checks used before them, so dead-letter reasons and HTTP 400 bodies read alike.
 */
export type ValidationMode = 'decode' | 'check';

function createAjv(mode: ValidationMode): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true, // errors carry their schema and value: the reasons below are worded from them
    strict: true,
    strictTypes: false, // the keywords of our own apply to any type
    removeAdditional: mode === 'decode' ? 'all' : false,
  });
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'object' });
  if (mode === 'decode') {
    ajv.addKeyword({
      keyword: 'nullMeansAbsent',
      type: 'object',
      schemaType: 'array',
      modifying: true,
      errors: false,
      before: 'properties',
      validate: (optional: readonly string[], data: Record<string, unknown>) => {
        for (const p of optional) if (data[p] === null) delete data[p];
        return true;
      },
    });
  }
  // String lengths in characters (code points) as JSON Schema counts them, without counting them when the UTF-16
  // length already decides (ajv's own count walks every string: it was most of the validators' time).
  ajv.addKeyword({
    keyword: 'maxChars',
    type: 'string',
    schemaType: 'number',
    errors: false,
    validate: (max: number, text: string) => text.length <= max || codePoints(text) <= max,
  });
  ajv.addKeyword({
    keyword: 'minChars',
    type: 'string',
    schemaType: 'number',
    errors: false,
    validate: (min: number, text: string) => text.length >= 2 * min || codePoints(text) >= min,
  });
  ajv.addKeyword({
    keyword: 'onlyOnRole',
    schemaType: 'string',
    errors: false,
    validate: (role: string, _data: unknown, _schema?: unknown, cxt?: { parentData?: unknown }) =>
      (cxt?.parentData as { role?: unknown } | undefined)?.role === role,
  });
  ajv.addKeyword({
    keyword: 'requiredOnRole',
    schemaType: 'object',
    errors: false,
    validate: (rule: Record<string, readonly string[]>, data: unknown) => missingOnRole(rule, data).length === 0,
  });
  return ajv;
}

/**
 * ISO 8601 as class-validator's `@IsISO8601({ strict: true })` takes it. The form producers write (`toISOString()`)
 * is recognized by a short regex and a day-of-month check first: the general check costs more than the rest of the
 * envelope's.
 */
const CANONICAL_TIME =
  /^([1-9]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{3})?Z$/;
export function isDateTime(text: string): boolean {
  const canonical = CANONICAL_TIME.exec(text);
  if (canonical) {
    const [, year, month, day] = canonical;
    return Number(day) <= new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
  }
  return isISO8601(text, { strict: true });
}

const LENGTH_KEYWORDS: Record<string, string> = { maxLength: 'maxChars', minLength: 'minChars' };

/**
 * The schema as it is compiled: `maxLength`/`minLength` as `maxChars`/`minChars`, and for decoding, each object
 * naming its optional properties for `nullMeansAbsent`. (A copy: the schema itself stays standard JSON Schema.)
 */
function compiledForm(schema: unknown, mode: ValidationMode): unknown {
  if (Array.isArray(schema)) return schema.map((s) => compiledForm(s, mode));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key in LENGTH_KEYWORDS && typeof value === 'number') {
      out[LENGTH_KEYWORDS[key]!] = value;
      continue;
    }
    out[key] =
      key === 'properties'
        ? mapValues(value as Record<string, unknown>, (v) => compiledForm(v, mode))
        : key === 'errorMessage'
          ? value
          : compiledForm(value, mode);
  }
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (mode === 'decode' && properties) {
    const required = new Set((schema as { required?: string[] }).required ?? []);
    const optional = Object.keys(properties).filter((p) => !required.has(p));
    if (optional.length > 0) out.nullMeansAbsent = optional;
  }
  return out;
}
const mapValues = (o: Record<string, unknown>, f: (v: unknown) => unknown) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function missingOnRole(rule: Record<string, readonly string[]>, data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return [];
  const role = (data as { role?: unknown }).role;
  if (typeof role !== 'string' || !Object.hasOwn(rule, role)) return [];
  return rule[role]!.filter((p) => (data as Record<string, unknown>)[p] == null);
}

const instances: Partial<Record<ValidationMode, Ajv>> = {};
const compiled: Record<ValidationMode, WeakMap<TSchema, ValidateFunction>> = {
  decode: new WeakMap(),
  check: new WeakMap(),
};

/** The compiled validator of a schema (compiled on first use, then kept). */
export function validatorFor(schema: TSchema, mode: ValidationMode): ValidateFunction {
  let validate = compiled[mode].get(schema);
  if (!validate) {
    const ajv = (instances[mode] ??= createAjv(mode));
    validate = ajv.compile(compiledForm(schema, mode) as SchemaObject);
    compiled[mode].set(schema, validate);
  }
  return validate;
}

/**
 * Validates `value` against `schema`; the violations as `path: reason`, `path` prefixed by `at` (`data`).
 * In `decode` mode the value loses the properties its schema does not list.
 */
export function violationsOf(schema: TSchema, value: unknown, at: string, mode: ValidationMode): string[] {
  const validate = validatorFor(schema, mode);
  return validate(value) ? [] : formatErrors(validate.errors ?? [], at);
}

/** `path: reason` for each error, in order, once each. */
export function formatErrors(errors: readonly ErrorObject[], at = ''): string[] {
  const out: string[] = [];
  for (const error of errors) {
    for (const line of describe(error, at)) if (!out.includes(line)) out.push(line);
  }
  return out;
}

function describe(error: ErrorObject, at: string): string[] {
  const path = join(at, pointerToPath(error.instancePath));
  const parent = (error.parentSchema ?? {}) as SchemaObject;
  const keyword = Object.keys(LENGTH_KEYWORDS).find((k) => LENGTH_KEYWORDS[k] === error.keyword) ?? error.keyword;
  const own = (parent.errorMessage as Record<string, string> | undefined)?.[keyword];
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      const schema = (parent.properties as Record<string, SchemaObject> | undefined)?.[missing];
      const its = (schema?.errorMessage as Record<string, string> | undefined)?.type;
      return [`${join(path, missing)}: ${own ?? its ?? (schema ? whatItMustBe(schema) : 'is required')}`];
    }
    case 'requiredOnRole': {
      const role = (error.data as { role: string }).role;
      return missingOnRole(error.schema as Record<string, string[]>, error.data).map(
        (p) => `${join(path, p)}: is required on ${role} messages`,
      );
    }
    case 'onlyOnRole':
      return [`${path}: is only allowed on ${String(error.schema)} messages`];
    case 'if':
      return []; // the failing branch says why
    default:
      return [`${path}: ${own ?? reason(error, parent)}`];
  }
}

/** The reason of a failed keyword, worded as class-validator words it. */
function reason(error: ErrorObject, schema: SchemaObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return whatItMustBe(schema);
    case 'enum':
      return `must be one of the following values: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `must be equal to ${JSON.stringify(p.allowedValue)}`;
    case 'minChars':
      return `must be longer than or equal to ${String(error.schema)} characters`;
    case 'maxChars':
      return `must be shorter than or equal to ${String(error.schema)} characters`;
    case 'minimum':
      return `must not be less than ${String(p.limit)}`;
    case 'maximum':
      return `must not be greater than ${String(p.limit)}`;
    case 'minItems':
      return `must contain at least ${String(p.limit)} elements`;
    case 'maxItems':
      return `must contain no more than ${String(p.limit)} elements`;
    case 'pattern':
      return `must match ${String(p.pattern)} regular expression`;
    case 'format':
      return p.format === 'date-time' ? 'must be a valid ISO 8601 date string' : `must be a valid ${String(p.format)}`;
    default:
      return error.message ?? `fails ${error.keyword}`;
  }
}

/** What a value of this schema must be (the reason when it is missing or of the wrong type). */
function whatItMustBe(schema: SchemaObject): string {
  if (Array.isArray(schema.enum)) return `must be one of the following values: ${schema.enum.join(', ')}`;
  switch (schema.type) {
    case 'string':
      return 'must be a string';
    case 'integer':
      return 'must be an integer number';
    case 'number':
      return 'must be a number conforming to the specified constraints';
    case 'boolean':
      return 'must be a boolean value';
    case 'array':
      return 'must be an array';
    case 'object':
      return 'must be an object';
    default:
      return 'is required';
  }
}

function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

const join = (a: string, b: string) => (a && b ? `${a}.${b}` : a || b);
