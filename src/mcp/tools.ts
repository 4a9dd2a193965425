/**
 * The MCP tools generated from openapi/ (docs/agents.md, "Tools"): one tool per operation of the API that answers JSON
 * in Style A, named by its `operationId`, described by its `summary` and `description`, its input the JSON Schema of
 * its path and query parameters (plus `body`, the request body's schema, and `idempotency_key` on writes), its scopes
 * the operation's `x-required-scope`. A new endpoint in openapi/ is a new tool, with no code here.
 *
 * Left out, each for a reason the document or this module names: operations without a key (`x-required-scope: none`:
 * pages, probes, public submissions), Style B-only paths (tool results are the Style A resource; on shared paths the
 * Style B-only parameters are left out and `X-API-Style: A` is sent), answers that are not JSON (exports), and
 * operations marked `x-mcp: false` in openapi/ (those whose purpose is a secret, or a whole document).
 */
import { scopesNeeded, operationIndex, type Operation } from '../platform/operations';
import type { OpenApiDocument } from '../platform/openapi';
import { B_ONLY_PARAMS } from '../platform/style';
import type { Scope } from '../core/scopes';

/** A JSON Schema object (draft 2020-12 subset: what openapi/ uses, with `nullable` rewritten). */
export type JsonSchema = Record<string, unknown>;

/** Where a tool argument goes in the HTTP request. */
export interface ToolParam {
  name: string;
  in: 'path' | 'query';
}

/** One tool of an API operation. */
export interface OperationTool {
  name: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  template: string;
  params: ToolParam[];
  /** The operation takes a JSON body (the `body` argument). */
  hasBody: boolean;
  /** Every scope the key needs (x-required-scope); empty for `key`. */
  scopes: readonly Scope[];
  /** A key may call it without the scope for its own key id (x-own-key-param). */
  ownKeyParam: string | undefined;
}

interface RawParam {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface RawOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: RawParam[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
  'x-mcp'?: unknown;
}

const METHODS = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']);
/** Keywords of OpenAPI 3.0 schemas that JSON Schema does not have or that only add weight. */
const DROPPED = new Set(['nullable', 'example', 'examples', 'discriminator', 'xml', 'externalDocs', 'deprecated']);

/**
 * Every operation tool of `doc`, in document order.
 * @returns the tools; an operation the rules above leave out has none.
 */
export function operationTools(doc: OpenApiDocument): OperationTool[] {
  const tools: OperationTool[] = [];
  for (const op of operationIndex(doc).operations) {
    const tool = toolOf(doc, op);
    if (tool) tools.push(tool);
  }
  return tools;
}

function toolOf(doc: OpenApiDocument, op: Operation): OperationTool | undefined {
  const item = doc.paths[op.template] ?? {};
  const raw = item[op.method.toLowerCase()] as RawOperation | undefined;
  if (!raw || !op.operationId || !METHODS.has(op.method) || !op.template.startsWith('/api/')) return undefined;
  if (op.scope === undefined || op.scope === 'none' || raw['x-mcp'] === false) return undefined;
  const style = item['x-style'];
  if (style === 'B') return undefined;
  if (!answersJson(raw)) return undefined;
  const shared = style === 'shared';
  const resolveRef = (v: unknown) => resolve(doc, v) as RawParam;
  const params = [...((item.parameters as unknown[] | undefined) ?? []), ...(raw.parameters ?? [])].map(resolveRef);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const toolParams: ToolParam[] = [];
  for (const p of params) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    if (shared && p.in === 'query' && B_ONLY_PARAMS.includes(p.name)) continue;
    properties[p.name] = { ...jsonSchema(doc, p.schema ?? {}), ...(p.description ? { description: p.description } : {}) };
    if (p.required || p.in === 'path') required.push(p.name);
    toolParams.push({ name: p.name, in: p.in });
  }
  const bodySchema = raw.requestBody?.content?.['application/json']?.schema;
  if (bodySchema) {
    properties.body = { ...jsonSchema(doc, bodySchema), description: 'The JSON request body.' };
    if (raw.requestBody?.required) required.push('body');
  }
  if (op.method !== 'GET') {
    properties.idempotency_key = {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: 'Sent as `Idempotency-Key`: the same key with the same arguments replays the first answer for 24 hours instead of writing again.',
    };
  }
  const scopes = scopesNeeded(op.scope);
  const description = [raw.summary, raw.description].filter(Boolean).join('\n\n');
  return {
    name: op.operationId,
    description,
    inputSchema: { type: 'object', properties, required, additionalProperties: false },
    method: op.method as OperationTool['method'],
    template: op.template,
    params: toolParams,
    hasBody: bodySchema !== undefined,
    scopes,
    ownKeyParam: op.ownKeyParam,
  };
}

/** The operation answers JSON on success (an answer without content, a 204, counts as JSON). */
function answersJson(raw: RawOperation): boolean {
  const ok = Object.entries(raw.responses ?? {}).filter(([status]) => /^2/.test(status));
  return ok.length > 0 && ok.every(([, r]) => !r.content || Object.keys(r.content).some((t) => /^application\/(?:[\w.-]+\+)?json$/.test(t)));
}

/** `value` with its `$ref` followed (one level; nested ones are followed by jsonSchema). */
function resolve(doc: OpenApiDocument, value: unknown): unknown {
  const ref = (value as { $ref?: unknown } | null)?.$ref;
  if (typeof ref !== 'string') return value;
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/**
 * An OpenAPI 3.0 schema as JSON Schema: `$ref`s inlined (a schema that refers to itself stops at `{}`), `nullable: true`
 * as a `null` type, keywords JSON Schema lacks dropped.
 */
export function jsonSchema(doc: OpenApiDocument, schema: unknown, seen: ReadonlySet<string> = new Set()): JsonSchema {
  if (schema === null || typeof schema !== 'object') return {};
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    if (seen.has(ref)) return {};
    return jsonSchema(doc, resolve(doc, schema), new Set([...seen, ref]));
  }
  const source = schema as Record<string, unknown>;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(source)) {
    if (DROPPED.has(k) || k.startsWith('x-')) continue;
    if (k === 'properties' && v && typeof v === 'object') {
      out.properties = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, jsonSchema(doc, s, seen)]));
    } else if ((k === 'items' || k === 'additionalProperties' || k === 'not') && v && typeof v === 'object') {
      out[k] = jsonSchema(doc, v, seen);
    } else if ((k === 'oneOf' || k === 'anyOf' || k === 'allOf') && Array.isArray(v)) {
      out[k] = v.map((s) => jsonSchema(doc, s, seen));
    } else {
      out[k] = v;
    }
  }
  if (source.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (out.type === undefined && (out.oneOf || out.anyOf || out.allOf)) return { anyOf: [out, { type: 'null' }] };
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}
