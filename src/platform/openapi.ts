/**
 * The OpenAPI description (openapi/openapi.yaml, the source of truth for the wire format): loaded
 * once, served raw at `/api/v1/openapi` and `/openapi.json`, and used by express-openapi-validator
 * to validate every request (and, when configured, every response).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import yaml from 'js-yaml';
import { inOrder } from './in-order';
import { projectRoot } from './paths';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

let cached: OpenApiDocument | undefined;

export function loadOpenApiDocument(): OpenApiDocument {
  if (!cached) {
    const file = path.join(projectRoot(), 'openapi', 'openapi.yaml');
    cached = yaml.load(fs.readFileSync(file, 'utf8')) as OpenApiDocument;
  }
  return cached;
}

/**
 * express-openapi-validator 5 finds a request's operation by compiling every documented path with
 * path-to-regexp's `pathToRegexp` anew on each request (middlewares/openapi.metadata.js, lookupRoute):
 * about 5 % of a list request's CPU. The compiled form depends only on the arguments, so it is
 * memoized (a fixed set: the document's paths × the app's two routing flags). Express's own router
 * uses `match`, not this function, and is unaffected.
 */
function memoizePathToRegexp(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the patch must change the module's own exports object; an import gives a copy
  const p2r = require('path-to-regexp') as { pathToRegexp: (path: unknown, opts?: unknown) => unknown; __memoized?: true };
  if (p2r.__memoized) return;
  const compile = p2r.pathToRegexp;
  // By path, then by the three flags as bits: no key string or key list is made per call (about 56 calls per request).
  const memo = new Map<string, unknown[]>();
  const FLAGS = new Set(['sensitive', 'strict', 'end']);
  p2r.pathToRegexp = (path: unknown, opts?: unknown) => {
    const flags = opts as { sensitive?: boolean; strict?: boolean; end?: boolean } | undefined;
    // Only the call shape the validator uses is memoized (a string and these boolean flags).
    if (typeof path !== 'string') return compile(path, opts);
    if (flags !== undefined) for (const k in flags) if (!FLAGS.has(k)) return compile(path, opts);
    const slot = (flags?.sensitive === true ? 1 : 0) | (flags?.strict === true ? 2 : 0) | (flags?.end !== false ? 4 : 0);
    let compiled = memo.get(path);
    if (compiled === undefined) memo.set(path, (compiled = []));
    return (compiled[slot] ??= compile(path, opts));
  };
  p2r.__memoized = true;
}

const KNOWN_MEDIA_TYPES = new Set(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);

/**
 * The validator compiles and caches one middleware per method, route and Content-Type header, so
 * arbitrary Content-Type values would grow that cache without bound (and cost a compile each).
 * The header is reduced to a few media types first: JSON bodies are already parsed (as UTF-8) by
 * express.json; any other type becomes `application/octet-stream` (a 415 where a body is expected).
 */
export function canonicalContentType(): RequestHandler {
  return (req, _res, next) => {
    const raw = req.headers['content-type'];
    if (raw !== undefined) {
      const media = raw.split(';')[0]!.trim().toLowerCase();
      const json = media === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(media);
      req.headers['content-type'] = json ? 'application/json' : KNOWN_MEDIA_TYPES.has(media) ? media : 'application/octet-stream';
    }
    next();
  };
}

/** Names of the document's repeatable query parameters (`style: form`, `explode: true`, an array schema). */
function repeatableQueryParams(doc: OpenApiDocument): Set<string> {
  const params = ((doc.components as Record<string, unknown> | undefined)?.parameters ?? {}) as Record<string, Record<string, unknown>>;
  const names = Object.values(params)
    .filter((p) => p.in === 'query' && p.explode === true && (p.schema as { type?: unknown } | undefined)?.type === 'array')
    .map((p) => String(p.name));
  return new Set(names);
}

/**
 * The validator turns a lone repeatable parameter into a one-item list, except an empty one (`?row_id=`):
 * it skips falsy values (express-openapi-validator 5, RequestParameterMutator.explodeJsonArrayAndMutateRequest)
 * and then answers "must be array". This does that step for the empty value, so `row_id=` is the empty text
 * as `row_id = ""` is in the filter language. Express 5 computes `req.query` in a getter: the parsed object
 * is set on the request, as the validator itself does.
 */
function emptyRepeatableValues(names: ReadonlySet<string>): RequestHandler {
  return (req, _res, next) => {
    const query = req.query as Record<string, unknown>;
    const empty = Object.keys(query).filter((k) => query[k] === '' && names.has(k));
    if (empty.length > 0) {
      const fixed = { ...query };
      for (const k of empty) fixed[k] = [''];
      Object.defineProperty(req, 'query', { value: fixed, writable: true, configurable: true, enumerable: true });
    }
    next();
  };
}

/**
 * Request (and optionally response) validation against the document; security is checked by platform/auth. The steps
 * before the validator's error handler run as one layer (platform/in-order.ts).
 */
export function openApiValidator(doc: OpenApiDocument, validateResponses: boolean): Array<RequestHandler | ErrorRequestHandler> {
  const { steps, back, backOnError } = openApiMiddleware(doc, validateResponses);
  return [inOrder(canonicalContentType(), emptyRepeatableValues(repeatableQueryParams(doc)), ...steps), back, backOnError];
}

/**
 * A copy of the document for the validator, without examples (`components.examples` and every media type's `examples`): the validator's Ajv (draft-04) compiles each schema together with the whole `paths` and
 * `components` and takes every string `id` member it finds there for a schema id, so two examples
 * naming the same resource (`"id": "rsp_1"`) would make it refuse to compile ("resolves to more than one
 * schema"). Validation needs no examples (docs/api-rules.md, "Examples").
 */
export function validatorSpec(doc: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(doc);
  const strip = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(strip);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'content' && value && typeof value === 'object') {
        for (const media of Object.values(value)) if (media && typeof media === 'object') delete (media as Record<string, unknown>).examples;
      }
      strip(value);
    }
  };
  strip(copy.paths);
  strip(copy.components);
  delete (copy.components as Record<string, unknown> | undefined)?.examples;
  return copy;
}

/** Requests the validator sees as GET while they are HEAD (validatedAsGet). */
const headAsGet = new WeakSet<Request>();

/**
 * Runs the validator's steps on a HEAD request as on its GET (HTTP answers HEAD wherever GET works,
 * docs/api-rules.md, "HEAD and 405"): the validator looks operations up by method and would refuse HEAD with a
 * 405 of its own. The method is GET only while the validator's steps run and is HEAD again after them, also when
 * they fail, so the routers and Express's own HEAD handling (no body) see the request as it came. The same compiled
 * validators serve both methods; copying every `get` to a `head` in the document instead would enlarge what Ajv
 * walks on every compile (it compiles each schema with the whole `paths`).
 */
function validatedAsGet(steps: RequestHandler[]): { steps: RequestHandler[]; back: RequestHandler; backOnError: ErrorRequestHandler } {
  const asGet: RequestHandler = (req, _res, next) => {
    if (req.method === 'HEAD') {
      req.method = 'GET';
      headAsGet.add(req);
    }
    next();
  };
  const restore = (req: Request) => {
    if (!headAsGet.delete(req)) return;
    req.method = 'HEAD';
    // A HEAD answer has no body to check: without its metadata the response validator (tests only) leaves it alone
    // instead of compiling validators of its own for HEAD; GET's answer is checked as GET.
    delete (req as Request & { openapi?: unknown }).openapi;
  };
  const back: RequestHandler = (req, _res, next) => {
    restore(req);
    next();
  };
  const backOnError: ErrorRequestHandler = (err, req, _res, next) => {
    restore(req);
    next(err);
  };
  return { steps: [asGet, ...steps], back, backOnError };
}

/** express-openapi-validator's steps by `validateResponses`, kept across apps when a host asks for it (shareCompiledValidators). */
export type CompiledValidators = Map<boolean, RequestHandler[]>;
let sharedCompiled: CompiledValidators | undefined;

/**
 * Keeps express-openapi-validator's steps in `store` (by `validateResponses`), so that every app built afterwards
 * in this process reuses them and the schemas they compiled: the validator compiles an operation's request
 * schemas, and its response schemas when responses are validated, on the operation's first request, each
 * together with the whole document (tens of milliseconds each). The jest setup (tests/support/share-validators.ts)
 * passes one store per worker: each test file has a module registry of its own, and compiling the same schemas in
 * every file again was about half of a component test file's CPU. The store is only valid for one openapi/ document;
 * the service itself builds one app per process and never calls this.
 */
export function shareCompiledValidators(store: CompiledValidators): void {
  sharedCompiled = store;
}

function openApiMiddleware(doc: OpenApiDocument, validateResponses: boolean): ReturnType<typeof validatedAsGet> {
  if (!sharedCompiled) return validatedAsGet(compileValidator(doc, validateResponses));
  let kept = sharedCompiled.get(validateResponses);
  if (!kept) sharedCompiled.set(validateResponses, (kept = compileValidator(doc, validateResponses)));
  return validatedAsGet(kept.map(inThisRealm));
}

/**
 * A kept step as a step of the app's own JavaScript realm. The steps may come from another realm (another jest test
 * file's module registry), and Express's router takes a Promise of another realm returned by a step for a
 * "Promise-like" value and prints a deprecation warning for it: the result is adopted as a Promise of this realm.
 */
function inThisRealm(step: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const result: unknown = step(req, res, next);
    return result !== null && typeof result === 'object' && 'then' in result ? Promise.resolve(result as PromiseLike<void>) : undefined;
  };
}

function compileValidator(doc: OpenApiDocument, validateResponses: boolean): RequestHandler[] {
  memoizePathToRegexp();
  return OpenApiValidator.middleware({
    // The validator mutates the spec it is given (a copy: ours stays pristine for serving), without examples.
    apiSpec: validatorSpec(doc) as never,
    // coerceTypes false: bodies keep their JSON types (`"name": 12345` is a 400, docs/writes-keys-limits.md, "Limits, bad bytes and secrets"). The
    // validator still coerces query, path and header parameters to their documented types: it always
    // validates those with a second, coercing Ajv (express-openapi-validator RequestValidator).
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    validateFormats: true,
  });
}
