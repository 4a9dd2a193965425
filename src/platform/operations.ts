/**
 * The operations of openapi/openapi.yaml as a lookup table, built once from the document (the one
 * source of every operation's scope, docs/writes-keys-limits.md, "API keys and scopes"): which path template a request path
 * matches, which methods it has, each operation's `x-required-scope`, and the path's `x-style`. Used before validation
 * (the order of checks puts 403 before 400) by the request context (the match), the style, the scope check and the 405 answer.
 */
import { isScope, type Scope } from '../core/scopes';
import type { OpenApiDocument } from './openapi';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** The order methods are listed in `Allow` and in the 405 message. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

/**
 * The methods a path answers, as `Allow` lists them: upper case, HEAD wherever GET is (HTTP answers HEAD like
 * GET; docs/api-rules.md, "HEAD and 405"), in METHOD_ORDER, each once.
 * @param methods the documented methods in any case (`get`, `POST`).
 */
export function allowedMethods(methods: Iterable<string>): string[] {
  const set = new Set([...methods].map((m) => m.toUpperCase()));
  if (set.has('GET')) set.add('HEAD');
  return [...set].sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b));
}

/**
 * What `x-required-scope` may say: a scope; a list of scopes, every one needed (minting a dashboard link needs
 * `forms:write` and `responses:read`, docs/writes-keys-limits.md, "API keys and scopes"); `key` (any valid API
 * key, no particular scope, e.g. `GET /api/v1/openapi`); `none` (no key at all: `/openapi.json`, pages, public
 * submissions, probes).
 */
export type RequiredScope = Scope | readonly Scope[] | 'key' | 'none';

export function isRequiredScope(value: unknown): value is RequiredScope {
  if (Array.isArray(value)) return value.length > 0 && value.every((s) => typeof s === 'string' && isScope(s));
  return typeof value === 'string' && (value === 'key' || value === 'none' || isScope(value));
}

/** The scopes a key needs for an operation that declares `scope` (none for `key` and `none`). */
export function scopesNeeded(scope: RequiredScope): readonly Scope[] {
  if (scope === 'key' || scope === 'none') return [];
  return typeof scope === 'string' ? [scope] : scope;
}

/**
 * `x-style` of a path item (docs/migrating-between-styles.md, "How the style is chosen"): `A` or `B` for a style-only
 * path, `shared` for a path both styles answer (header, then style-only parameters, then the key's default), `none` for
 * a path of no style (the document, translation, public submissions, pages, probes: the header's style, else the key's
 * default, else A). tests/unit/x-style.test.ts checks it against the routers.
 */
export type PathStyle = 'A' | 'B' | 'shared' | 'none';
const PATH_STYLES: ReadonlySet<unknown> = new Set<PathStyle>(['A', 'B', 'shared', 'none']);

export interface Operation {
  method: string;
  /** The document's path template, e.g. `/api/v1/workspaces/{workspace_id}/forms`. */
  template: string;
  operationId: string | undefined;
  /** The declared `x-required-scope`, undefined when missing or not a valid value (refused: fails closed). */
  scope: RequiredScope | undefined;
  /** The raw declared value (for error messages and the coverage test). */
  declared: unknown;
  /**
   * `x-own-key-param`: the path parameter holding a key id; a key whose own id it is needs no scope
   * here (a key reads its own migration report). Undefined on every other operation.
   */
  ownKeyParam: string | undefined;
  /**
   * A GET that declares a `304` answer: it carries an `ETag` and answers `If-None-Match` (docs/api-rules.md,
   * "Conditional requests"), and a 304 does not count against the key's rate limit.
   */
  conditional: boolean;
}

export interface PathMatch {
  template: string;
  /** The template as Express writes routes (`/api/v1/workspaces/:workspace_id/forms`): the metrics' route label. */
  route: string;
  /** Upper-case methods the path has (HEAD is implied by GET, as Express answers it). */
  methods: string[];
  operations: Map<string, Operation>;
  /** The path item's `x-style`; undefined when missing or not a PathStyle (answered like `none`; the x-style test fails). */
  style: PathStyle | undefined;
}

interface CompiledPath extends PathMatch {
  regex: RegExp;
  /** Literal segments count: more literal templates win over parameter ones (`/emails/events`). */
  literals: number;
}

export interface OperationIndex {
  /** Every operation of the document, in document order. */
  operations: Operation[];
  /** The template a request path (raw, as `req.path`) matches; undefined when the document has no such path. */
  match(path: string): PathMatch | undefined;
  /** The operation for a method and path (HEAD falls back to GET). */
  find(method: string, path: string): Operation | undefined;
  /** The operation of a method on an already matched path (HEAD falls back to GET). */
  operationOf(match: PathMatch, method: string): Operation | undefined;
}

/** The operation of a method on a matched path (HEAD falls back to GET). */
export function operationOf(match: PathMatch, method: string): Operation | undefined {
  const upper = method.toUpperCase();
  return match.operations.get(upper) ?? (upper === 'HEAD' ? match.operations.get('GET') : undefined);
}

function compile(template: string): RegExp {
  const body = template
    .split('/')
    .map((seg) => (/^\{[^}]+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/**
 * The segments of a path as a template's regex counts them: a template's literals hold no `/` and its parameters
 * match one or more characters other than `/`, so a path it matches has exactly as many `/` as the template, plus
 * the one trailing `/` the regex allows (not counted here).
 */
function segmentCount(path: string): number {
  let n = 1;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return path.length > 1 && path.endsWith('/') ? n - 1 : n;
}

const built = new WeakMap<OpenApiDocument, OperationIndex>();

/**
 * The index of a loaded document, built once per document (the scope check, the 405 answer and the
 * metrics' route label share it); the document is not changed.
 */
export function operationIndex(doc: OpenApiDocument): OperationIndex {
  let index = built.get(doc);
  if (!index) built.set(doc, (index = buildIndex(doc)));
  return index;
}

function buildIndex(doc: OpenApiDocument): OperationIndex {
  const operations: Operation[] = [];
  const compiled: CompiledPath[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const ops = new Map<string, Operation>();
    for (const method of HTTP_METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      const declared = op['x-required-scope'];
      const operation: Operation = {
        method: method.toUpperCase(),
        template,
        operationId: op.operationId as string | undefined,
        scope: isRequiredScope(declared) ? declared : undefined,
        declared,
        ownKeyParam: typeof op['x-own-key-param'] === 'string' ? op['x-own-key-param'] : undefined,
        conditional: method === 'get' && Object.hasOwn((op.responses as Record<string, unknown> | undefined) ?? {}, '304'),
      };
      ops.set(operation.method, operation);
      operations.push(operation);
    }
    const methods = allowedMethods(ops.keys());
    compiled.push({
      template,
      route: template.replace(/\{([^}]+)\}/g, ':$1'),
      methods,
      operations: ops,
      style: PATH_STYLES.has(item['x-style']) ? (item['x-style'] as PathStyle) : undefined,
      regex: compile(template),
      literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
    });
  }
  compiled.sort((a, b) => b.literals - a.literals);
  // A template matches only paths of its number of segments: each request tests the few templates of its own number.
  const bySegments = new Map<number, CompiledPath[]>();
  for (const c of compiled) {
    const n = segmentCount(c.template);
    bySegments.set(n, [...(bySegments.get(n) ?? []), c]);
  }
  const match = (path: string) => bySegments.get(segmentCount(path))?.find((c) => c.regex.test(path));
  return {
    operations,
    match,
    find(method, path) {
      const m = match(path);
      return m && operationOf(m, method);
    },
    operationOf,
  };
}

/**
 * The raw value of path parameter `name` of a request path that matches `template` (undefined when the
 * template has no such parameter). Segments are compared as written: an id is never percent-encoded.
 */
export function pathParam(template: string, path: string, name: string): string | undefined {
  const i = template.split('/').indexOf(`{${name}}`);
  return i < 0 ? undefined : path.split('/')[i];
}
