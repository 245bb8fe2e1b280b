import fc from 'fast-check';

/**
 * A request fuzzer driven by an OpenAPI 3 document (what the service serves at /v1/docs-json): for every
 * operation it generates path parameters, queries, headers and bodies that are sometimes valid and often not —
 * wrong types, missing and unknown fields, oversized strings and bodies, deep nesting, broken JSON, broken
 * percent-encoding, prototype keys. The service must answer all of them without a 5xx.
 */

type Schema = Record<string, any>;
export interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Schema[]; requestBody?: Schema }>>;
  components?: { schemas?: Record<string, Schema> };
}

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** Which kind of body mutation made it (for the report). */
  readonly kind: string;
}

const OVERSIZED = 4_500_000; // over the service's default body limit (4 MB)
const DEEP = '\u0000deep:';

/** JSON.stringify, with the deep-nesting tokens expanded to `[[[…]]]` of that depth. */
export function serialize(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(
    /"\\u0000deep:(\d+)"/g,
    (_, n: string) => '['.repeat(Number(n)) + ']'.repeat(Number(n)),
  );
}

export class OpenApiFuzzer {
  constructor(
    private readonly doc: OpenApiDocument,
    /** Ids that exist (a session with messages and blocks), so that some requests go deep. */
    private readonly known: { sessionIds: readonly string[]; blockIds: readonly string[] },
  ) {}

  private resolve(schema: Schema | undefined): Schema {
    let s = schema ?? {};
    for (let i = 0; s.$ref && i < 20; i++) s = this.doc.components!.schemas![s.$ref.split('/').pop()!]!;
    return s;
  }

  /** Values the schema accepts (roughly: patterns and lengths are only partly honoured). */
  valid(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    const alternatives = s.oneOf ?? s.anyOf;
    if (alternatives) return fc.oneof(...alternatives.map((a: Schema) => this.valid(a, depth + 1)));
    if (s.enum) return fc.constantFrom(...s.enum);
    switch (s.type) {
      case 'string':
        return s.pattern ? fc.stringMatching(/^[A-Za-z0-9_:@-]{1,20}$/) : fc.string({ maxLength: 40 });
      case 'integer':
        return fc.integer({ min: s.minimum ?? 0, max: s.maximum ?? 100_000 });
      case 'number':
        return fc.double({ min: s.minimum ?? 0, max: s.maximum ?? 100_000, noNaN: true });
      case 'boolean':
        return fc.boolean();
      case 'array':
        return depth > 4 ? fc.constant([]) : fc.array(this.valid(s.items, depth + 1), { maxLength: 3 });
      case 'object':
      default: {
        const props = Object.entries((s.properties ?? {}) as Record<string, Schema>);
        if (props.length === 0 || depth > 4)
          return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }));
        return fc.record(Object.fromEntries(props.map(([k, v]) => [k, this.valid(v, depth + 1)])), {
          requiredKeys: (s.required ?? []).filter((k: string) => props.some(([p]) => p === k)),
        });
      }
    }
  }

  /** A value of the wrong type, an oversized or a deeply nested one. */
  wrong(): fc.Arbitrary<unknown> {
    return fc.oneof(
      { weight: 5, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.string()) },
      { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
      { weight: 1, arbitrary: fc.constantFrom(Number.MAX_SAFE_INTEGER * 1e300, -1e308, 1e-320, -0) },
      { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 500_000 }).map((n) => 'x'.repeat(n)) },
      // Deep nesting, as a token the serializer expands (a real 5,000-deep value would overflow fast-check).
      { weight: 1, arbitrary: fc.integer({ min: 100, max: 5000 }).map((n) => `${DEEP}${n}`) },
      {
        weight: 1,
        arbitrary: fc.constant(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{}}}')),
      },
    );
  }

  /** A valid value with one part broken: a field of the wrong type, a required one missing, an unknown one. */
  broken(schema: Schema | undefined): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    const alternatives = s.oneOf ?? s.anyOf;
    if (alternatives) return fc.oneof(...alternatives.map((a: Schema) => this.broken(a)));
    if (s.type !== 'object' || !s.properties) return this.wrong();
    const keys = Object.keys(s.properties);
    return fc
      .tuple(this.valid(s) as fc.Arbitrary<Record<string, unknown>>, fc.constantFrom(...keys), this.wrong(), fc.nat(3))
      .map(([value, key, bad, how]) => {
        const out: Record<string, unknown> = { ...value };
        if (how === 0) delete out[key];
        else if (how === 1) out[`unknown_${key}`] = bad;
        else out[key] = bad;
        // Arrays of objects: break one element too.
        const prop = this.resolve(s.properties[key]);
        if (how === 3 && prop.type === 'array') out[key] = [bad, bad];
        return out;
      });
  }

  private pathValue(name: string): fc.Arbitrary<string> {
    const known = name === 'blockId' ? this.known.blockIds : this.known.sessionIds;
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...known).map(encodeURIComponent) },
      { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_:@-]{1,40}$/) },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeURIComponent) },
      { weight: 1, arbitrary: fc.integer({ min: 201, max: 20_000 }).map((n) => 'a'.repeat(n)) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          '%',
          '%ZZ',
          '%E0%A4%A',
          '%00',
          '..',
          '%2e%2e',
          '%2F',
          'a.b',
          '$where',
          '%F0%9F',
          ' ',
        ),
      },
    );
  }

  private queryValue(schema: Schema): fc.Arbitrary<string | string[] | Record<string, string>> {
    return fc.oneof(
      { weight: 4, arbitrary: this.valid(schema).map((v) => String(v)) },
      {
        weight: 3,
        arbitrary: fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.constantFrom('NaN', 'Infinity', '-1', '1e400', '0x10', '', '-0', '1.5', '99999999999999999999999'),
        ),
      },
      { weight: 1, arbitrary: fc.array(fc.string({ maxLength: 5 }), { minLength: 2, maxLength: 3 }) },
      {
        weight: 1,
        arbitrary: fc.dictionary(fc.constantFrom('$gt', '$ne', 'a', '__proto__'), fc.string({ maxLength: 5 }), {
          minKeys: 1,
        }),
      },
    );
  }

  private headerValue(): fc.Arbitrary<string | undefined> {
    // Printable ASCII: fetch (undici) refuses other header bytes before anything is sent.
    const latin1 = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 300,
    });
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_:@-]{1,30}$/) },
      { weight: 2, arbitrary: latin1 },
      { weight: 1, arbitrary: fc.integer({ min: 200, max: 7000 }).map((n) => 'k'.repeat(n)) },
    );
  }

  private body(schema: Schema | undefined): fc.Arbitrary<{ body?: string; contentType?: string; kind: string }> {
    const json = (kind: string, a: fc.Arbitrary<unknown>) =>
      a.map((v) => ({ body: serialize(v), contentType: 'application/json', kind }));
    return fc.oneof(
      { weight: 3, arbitrary: json('valid', this.valid(schema)) },
      { weight: 6, arbitrary: json('broken field', this.broken(schema)) },
      { weight: 3, arbitrary: json('wrong type', this.wrong()) },
      {
        weight: 2,
        arbitrary: fc
          .constantFrom('{', '{"a":', '[1,2', 'nul', '{"role":"user","content":"x"', '\u0000', '{"a":1}garbage', '')
          .map((body) => ({ body, contentType: 'application/json', kind: 'invalid JSON' })),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            json('', this.valid(schema)),
            fc.constantFrom(
              'text/plain',
              'application/xml',
              'multipart/form-data',
              'application/json; charset=utf-16',
              'application/x-www-form-urlencoded',
            ),
          )
          .map(([b, contentType]) => ({ body: b.body, contentType, kind: 'wrong content type' })),
      },
      { weight: 1, arbitrary: fc.constant({ body: undefined, contentType: 'application/json', kind: 'no body' }) },
      {
        weight: 1,
        arbitrary: fc.constant({
          body: JSON.stringify({ role: 'user', content: 'y'.repeat(OVERSIZED) }),
          contentType: 'application/json',
          kind: 'oversized body',
        }),
      },
    );
  }

  /** Requests for every operation of the document, weighted equally. */
  requests(): fc.Arbitrary<FuzzRequest> {
    const operations = Object.entries(this.doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
    return fc.oneof(
      ...operations.map(({ path, method, op }) => {
        const params = op.parameters ?? [];
        const pathParams = params.filter((p) => p.in === 'path');
        const queryParams = params.filter((p) => p.in === 'query');
        const headerParams = [
          ...new Set(params.filter((p) => p.in === 'header').map((p) => String(p.name).toLowerCase())),
        ];
        const bodySchema = op.requestBody?.content?.['application/json']?.schema;
        return fc
          .record({
            pathValues: fc.tuple(...pathParams.map((p) => this.pathValue(p.name)), fc.constant(0)),
            query: fc.tuple(
              ...queryParams.map((p) => fc.option(this.queryValue(p.schema ?? {}), { nil: undefined })),
              fc.option(fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 10 })), {
                nil: undefined,
              }),
            ),
            headers: fc.tuple(...headerParams.map(() => this.headerValue()), fc.constant(undefined)),
            body:
              method === 'GET'
                ? fc.constant({ kind: 'none' } as { body?: string; contentType?: string; kind: string })
                : this.body(bodySchema),
          })
          .map(({ pathValues, query, headers, body }) => {
            let url = path;
            pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, String(pathValues[i]))));
            const search = new URLSearchParams();
            queryParams.forEach((p, i) => {
              const v = query[i] as string | string[] | Record<string, string> | undefined;
              if (v === undefined) return;
              if (typeof v === 'string') search.append(p.name, v);
              else if (Array.isArray(v)) for (const x of v) search.append(p.name, x);
              else for (const [k, x] of Object.entries(v)) search.append(`${p.name}[${k}]`, x);
            });
            const extra = query[queryParams.length] as [string, string] | undefined;
            if (extra) search.append(extra[0], extra[1]);
            const h: Record<string, string> = {};
            headerParams.forEach((name, i) => {
              const v = headers[i] as string | undefined;
              if (v !== undefined) h[name] = v;
            });
            if (body.contentType) h['content-type'] = body.contentType;
            const qs = search.toString();
            return {
              method,
              path: qs ? `${url}?${qs}` : url,
              headers: h,
              ...(body.body !== undefined && { body: body.body }),
              kind: `${method} ${path} ${body.kind}`,
            };
          });
      }),
    );
  }
}
