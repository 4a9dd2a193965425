/**
 * One wording for every message about a value (docs/api-rules.md, "Errors"): `` `field` must be <what>; got <value>. ``,
 * with the range or the allowed values read from openapi/ and the value as the request sent it. Our own checks
 * write the same form (src/adapters/query-values.ts); this module rewords the validator's (express-openapi-validator,
 * Ajv: "must be >= 1", "must be integer") from the operation's schema.
 */
import type { Request } from 'express';
import type { OpenApiDocument } from './openapi';
import { operationIndex } from './operations';

/** The parts of a JSON schema the wording reads. */
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  nullable?: boolean;
}

interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  schema?: Schema;
}

/** Ajv keywords that judge a value against a range, a type or a list: reworded. Others (required, additionalProperties) keep Ajv's words. */
const VALUE_KEYWORDS = new Set([
  'type',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'enum',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'multipleOf',
]);

const FORMATS: Record<string, string> = {
  'date-time': 'an ISO 8601 date-time with an offset',
  date: 'a date YYYY-MM-DD',
  email: 'an e-mail address',
  uri: 'an absolute URL',
  url: 'an absolute URL',
};

function deref<T extends { $ref?: string }>(doc: OpenApiDocument, node: T | undefined): T | undefined {
  let n: unknown = node;
  for (let hops = 0; hops < 10 && n && typeof (n as { $ref?: unknown }).$ref === 'string'; hops++) {
    n = (n as { $ref: string }).$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return n as T | undefined;
}

/** "from 1 to 100", "of at least 1", "of at most 10", or "". */
function range(min: number | undefined, max: number | undefined, unit = ''): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}${unit}`;
  if (min !== undefined) return ` of at least ${min}${unit}`;
  if (max !== undefined) return ` of at most ${max}${unit}`;
  return '';
}

/**
 * What a value of `schema` must be, in words: `an integer from 1 to 100`, `one of asc, desc`,
 * `a string of 1 to 255 characters`, `an ISO 8601 date-time with an offset`, `true or false`.
 */
export function expectedValue(doc: OpenApiDocument, raw: Schema | undefined): string {
  const schema = deref(doc, raw);
  if (!schema) return 'a valid value';
  const orNull = schema.nullable === true ? ' or null' : '';
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) return variants.map((v) => expectedValue(doc, v)).join(' or ') + orNull;
  if (schema.allOf) return expectedValue(doc, Object.assign({}, ...schema.allOf.map((s) => deref(doc, s))) as Schema) + orNull;
  if (schema.enum) return `one of ${schema.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}${orNull}`;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  const min = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (type === 'integer' ? 1 : 0) : schema.minimum;
  const max = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - (type === 'integer' ? 1 : 0) : schema.maximum;
  switch (type) {
    case 'integer':
      return `an integer${range(min, max)}${orNull}`;
    case 'number':
      return `a number${range(min, max)}${orNull}`;
    case 'boolean':
      return `true or false${orNull}`;
    case 'array':
      return `a list${range(schema.minItems, schema.maxItems, ' items')} of ${expectedValue(doc, schema.items)}${orNull}`;
    case 'object':
      return `an object${orNull}`;
    default: {
      if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format] + orNull;
      if (schema.pattern) return `a string matching ${schema.pattern}${range(schema.minLength, schema.maxLength, ' characters')}${orNull}`;
      if (schema.minLength === 1 && schema.maxLength === undefined) return `a non-empty string${orNull}`;
      return `a string${range(schema.minLength, schema.maxLength, ' characters').replace(/^ (from|of)/, ' of')}${orNull}`;
    }
  }
}

/** The value as the request sent it: JSON for a body value, the text in quotes for a parameter; long values cut. */
export function receivedValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  // JSON has no text for a function or a symbol.
  const text = JSON.stringify(value) ?? String(value as symbol | (() => unknown));
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/**
 * The schema at a body path (`data.seats`, `data[2].type`), through properties, items and allOf; at a oneOf
 * (`data`: one object or a list) the variant the next step fits (a list for an index, else an object with the property).
 */
function bodySchema(doc: OpenApiDocument, root: Schema | undefined, segments: string[]): Schema | undefined {
  let at = deref(doc, root);
  for (const seg of segments) {
    if (!at) return undefined;
    const index = /^\d+$/.test(seg);
    const variants = (at.oneOf ?? at.anyOf)?.map((v) => deref(doc, v));
    if (variants) at = variants.find((v) => (index ? v?.type === 'array' : v?.properties?.[seg] !== undefined));
    if (at?.allOf) at = Object.assign({}, ...at.allOf.map((s) => deref(doc, s))) as Schema;
    at = deref(doc, index ? at?.items : at?.properties?.[seg]);
  }
  return at;
}

function bodyValue(body: unknown, segments: string[]): unknown {
  return segments.reduce<unknown>((at, seg) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[seg] : undefined), body);
}

/** The operation of the request in the document (method and path), with path-level parameters merged in. */
function operationOf(doc: OpenApiDocument, req: Request): { parameters: Parameter[]; body?: Schema } | undefined {
  const op = operationIndex(doc).find(req.method, req.path);
  if (!op) return undefined;
  const item = doc.paths[op.template] as Record<string, unknown>;
  const raw = item[op.method.toLowerCase()] as { parameters?: Parameter[]; requestBody?: { $ref?: string; content?: Record<string, { schema?: Schema }> } };
  const parameters = [...((item.parameters as Parameter[] | undefined) ?? []), ...(raw.parameters ?? [])]
    .map((p) => deref(doc, p))
    .filter((p): p is Parameter => p !== undefined);
  return { parameters, body: deref(doc, raw.requestBody)?.content?.['application/json']?.schema };
}

/** The n-th (from 0) raw value of a query parameter, as sent (before the validator's coercion). */
function rawQuery(req: Request, name: string, nth: number | undefined): string | undefined {
  const search = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
  const all = search.getAll(name);
  return nth === undefined ? all[0] : all[nth];
}

/**
 * The message of a validator problem in the one wording, or undefined to keep the validator's words (a keyword
 * about presence or unknown fields, or a field the document's schema does not describe plainly).
 * @param location query, path, header or body; `field` as the detail names it (`limit`, `data.seats`, `X-API-Style`).
 * @param keyword the Ajv keyword of the problem (`minimum`), from the validator's `errorCode`.
 * @param nth the 0-based position of a repeated query parameter's value.
 */
export function valueMessage(doc: OpenApiDocument, req: Request, location: string, field: string, keyword: string, nth?: number): string | undefined {
  if (!VALUE_KEYWORDS.has(keyword)) return undefined;
  const op = operationOf(doc, req);
  if (!op) return undefined;
  let schema: Schema | undefined;
  let value: unknown;
  if (location === 'body') {
    const segments = field
      .replace(/\[(\d+)\]/g, '.$1')
      .split('.')
      .filter(Boolean);
    schema = bodySchema(doc, op.body, segments);
    value = bodyValue(req.body, segments);
    if (schema?.oneOf || schema?.anyOf) return undefined;
  } else {
    const param = op.parameters.find((p) => p.in === location && p.name.toLowerCase() === field.toLowerCase());
    schema = param?.schema;
    value = location === 'query' ? rawQuery(req, param?.name ?? field, nth) : location === 'header' ? req.get(field) : req.params?.[param?.name ?? field];
    // A repeated parameter's value is judged against its items.
    if (nth !== undefined && deref(doc, schema)?.type === 'array') schema = deref(doc, schema)?.items;
  }
  if (!schema) return undefined;
  return `must be ${expectedValue(doc, schema)}; got ${receivedValue(value)}.`;
}
