/**
 * The OpenAPI description (openapi/openapi.yaml, the source of truth for the wire format): loaded
 * once, served raw at `/api/v1/openapi` and `/openapi.json`, and used by express-openapi-validator
 * to validate every request (and, when configured, every response).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import yaml from 'js-yaml';
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
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const p2r = require('path-to-regexp') as { pathToRegexp: (path: unknown, opts?: unknown) => unknown; __memoized?: true };
  if (p2r.__memoized) return;
  const compile = p2r.pathToRegexp;
  const memo = new Map<string, unknown>();
  const FLAGS = new Set(['sensitive', 'strict', 'end']);
  p2r.pathToRegexp = (path: unknown, opts?: unknown) => {
    const flags = opts as { sensitive?: boolean; strict?: boolean; end?: boolean } | undefined;
    // Only the call shape the validator uses is memoized (a string and these boolean flags).
    if (typeof path !== 'string' || (flags !== undefined && !Object.keys(flags).every((k) => FLAGS.has(k)))) return compile(path, opts);
    const key = `${path}\n${flags?.sensitive === true}${flags?.strict === true}${flags?.end !== false}`;
    let compiled = memo.get(key);
    if (compiled === undefined) {
      compiled = compile(path, opts);
      memo.set(key, compiled);
    }
    return compiled;
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

/** Request (and optionally response) validation against the document; security is checked by platform/auth. */
export function openApiValidator(doc: OpenApiDocument, validateResponses: boolean): RequestHandler[] {
  return [canonicalContentType(), ...openApiMiddleware(doc, validateResponses)];
}

function openApiMiddleware(doc: OpenApiDocument, validateResponses: boolean): RequestHandler[] {
  memoizePathToRegexp();
  return OpenApiValidator.middleware({
    // The validator mutates the spec it is given; keep ours pristine for serving.
    apiSpec: structuredClone(doc) as never,
    // coerceTypes false: bodies keep their JSON types (`"name": 12345` is a 400, CONTRACT section 7). The
    // validator still coerces query, path and header parameters to their documented types: it always
    // validates those with a second, coercing Ajv (express-openapi-validator RequestValidator).
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    validateFormats: true,
  }) as unknown as RequestHandler[];
}
