/**
 * The operations of openapi/openapi.yaml, resolved for generated tests (fuzz, tenant isolation): every
 * operation with its path, query and header parameters and its JSON body schema, `$ref`s resolved. The
 * tests read this, so operations other branches add are covered without touching the tests.
 */
import { loadOpenApiDocument } from '../../src/platform/openapi';
import { operationIndex, type RequiredScope } from '../../src/platform/operations';

export type Schema = {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
  example?: unknown;
  default?: unknown;
};

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface DocOperation {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  template: string;
  scope: RequiredScope | undefined;
  params: Param[];
  /** The application/json request body schema, when the operation takes one. */
  body?: Schema;
  /** Media types of the body (a form post takes application/x-www-form-urlencoded). */
  bodyTypes: string[];
  /** The path answers in both styles (docs/migrating-between-styles.md, "How the style is chosen": it names X-API-Style). */
  shared: boolean;
  /** Documented media types by response status (`400` → [`text/html`] for a page). */
  responseTypes: Record<string, string[]>;
  /** Documented response headers by status: lower-case name → `required` (issue 19 item 5). */
  responseHeaders: Record<string, Record<string, boolean>>;
}

const doc = loadOpenApiDocument();

function resolve<T>(value: T, seen = new Set<string>()): T {
  if (Array.isArray(value)) return value.map((v) => resolve(v, seen)) as T;
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as { $ref?: string }).$ref;
  if (typeof ref === 'string') {
    if (seen.has(ref)) return {} as T;
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    return resolve(target as T, new Set([...seen, ref]));
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = resolve(v, seen);
  return out as T;
}

/** Every operation of the document, resolved. */
export function documentOperations(): DocOperation[] {
  const index = operationIndex(doc);
  return index.operations.map((op) => {
    const item = doc.paths[op.template] as Record<string, unknown>;
    const raw = resolve(item[op.method.toLowerCase()]) as {
      parameters?: Param[];
      requestBody?: { content?: Record<string, { schema?: Schema }> };
      responses?: Record<string, { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean }> }>;
    };
    const byKey = new Map<string, Param>();
    for (const p of [...(resolve(item.parameters as Param[] | undefined) ?? []), ...(raw.parameters ?? [])]) {
      byKey.set(`${p.in}:${p.name.toLowerCase()}`, { ...p, required: !!p.required, schema: p.schema ?? {} });
    }
    const params = [...byKey.values()];
    const content = raw.requestBody?.content ?? {};
    return {
      method: op.method as DocOperation['method'],
      template: op.template,
      scope: op.scope,
      params,
      body: content['application/json']?.schema,
      bodyTypes: Object.keys(content),
      shared: params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'x-api-style'),
      responseTypes: Object.fromEntries(Object.entries(raw.responses ?? {}).map(([status, r]) => [status, Object.keys(r.content ?? {})])),
      responseHeaders: Object.fromEntries(
        Object.entries(raw.responses ?? {}).map(([status, r]) => [
          status,
          Object.fromEntries(Object.entries(r.headers ?? {}).map(([name, h]) => [name.toLowerCase(), !!h.required])),
        ]),
      ),
    };
  });
}

/**
 * The response headers clients rely on (issue 19 item 5): when the service sends one, openapi/ must
 * declare it for that operation and status.
 */
export const CONTRACT_HEADERS = [
  'x-api-style',
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
  'retry-after',
  'etag',
  'deprecation',
  'sunset',
  'link',
  'idempotent-replayed',
  'location',
];

/**
 * What a live answer breaks of its operation's declared headers: a header declared `required: true`
 * for the status that the answer lacks, or a header of CONTRACT_HEADERS the answer carries that the
 * status does not declare. A status the document does not list is left to the callers' other checks.
 * @param headers the answer's headers, names in lower case (supertest's `res.headers`).
 * @returns one line per problem, empty when the answer matches.
 */
export function headerProblems(op: DocOperation, status: number, headers: Record<string, unknown>): string[] {
  const declared = op.responseHeaders[String(status)];
  if (!declared) return [];
  const missing = Object.entries(declared)
    .filter(([name, required]) => required && headers[name] === undefined)
    .map(([name]) => `${status} lacks required header ${name}`);
  const undeclared = CONTRACT_HEADERS.filter((name) => headers[name] !== undefined && !(name in declared)).map(
    (name) => `${status} sends undeclared header ${name}`,
  );
  return [...missing, ...undeclared];
}

/** headerProblems for the document's operation `method template` (e.g. `GET`, `/f/{form_id}`), for single answers. */
export function declaredHeaderProblems(method: DocOperation['method'], template: string, status: number, headers: Record<string, unknown>): string[] {
  const op = documentOperations().find((o) => o.method === method && o.template === template);
  if (!op) return [`${method} ${template} is not an operation of the document`];
  return headerProblems(op, status, headers);
}

/** A valid body for the operation, with rows and entries shaped for the scenario's table (tests/support/given.ts). */
export function wellFormedBody(op: DocOperation): unknown {
  if (/\/(rows|entries)(\/|$)/.test(op.template) || op.template.endsWith('/bulk-entries')) {
    const row = { id: `fz-${Math.random().toString(36).slice(2, 8)}`, plan: 'fuzz', seats: 3 };
    return { data: op.template.endsWith('/bulk-entries') ? [row] : row };
  }
  return validValue(op.body);
}

/** Fills a path template; `values` by parameter name, anything else gets `fallback(name)`. */
export function fillPath(template: string, values: Record<string, string>, fallback: (name: string) => string = () => 'x_unknown'): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? fallback(name)));
}

/** A valid-looking value for a schema (examples and defaults first), for requests that must pass validation. */
export function validValue(schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 6) return 'x';
  if (schema.example !== undefined) return schema.example;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s) => validValue(s, depth + 1) as object));
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants && variants.length > 0) return validValue(variants[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => validValue(schema.items, depth + 1));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const name of schema.required ?? []) out[name] = validValue(schema.properties?.[name], depth + 1);
      return out;
    }
    default:
      if (schema.format === 'date-time') return '2099-01-01T00:00:00Z';
      if (schema.format === 'date') return '2026-01-01';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://hooks.example.com/fuzz';
      if (schema.format === 'email') return 'someone@example.com';
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  }
}
