/**
 * Reading query values in adapters. The OpenAPI validator has already checked types and ranges of
 * declared parameters (and coerced them); these helpers add the style-specific rules the shared
 * paths need (docs/api-rules.md, "Lists and pages": limits are rejected, never clamped) and the date rules.
 */
import type { Request } from 'express';
import type { ApiKeyMeta } from '../core/api-keys/api-keys.store';
import { errors } from '../core/errors';
import { beforeBound, endDateBound, fromBound, type DateBound } from '../core/query/dates';

export function str(req: Request, name: string): string | undefined {
  // The simple query parser (app.ts) gives strings; the OpenAPI validator may have coerced one to a number or boolean.
  const v = req.query[name] as string | string[] | number | boolean | undefined;
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw errors.invalid('query', name, `\`${name}\` may be given once.`);
  return String(v);
}

/**
 * A repeatable parameter's values as text, in request order (`?id_in=a&id_in=b` → ["a", "b"]; the validator
 * may have coerced them to numbers or booleans), or undefined when absent.
 */
export function list(req: Request, name: string): string[] | undefined {
  const v: unknown = req.query[name]; // the validator may have coerced it to a number or boolean
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** The values of each of `names` the request gave (absent names left out). */
export function lists(req: Request, names: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of names) {
    const values = list(req, name);
    if (values !== undefined) out[name] = values;
  }
  return out;
}

/** An integer parameter in [min, max], or the default. */
export function int(req: Request, name: string, min: number, max: number, fallback: number): number {
  const raw = str(req, name);
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw errors.invalid('query', name, `\`${name}\` must be an integer from ${min} to ${max}; got "${raw}".`);
  }
  return n;
}

export function num(req: Request, name: string): number | undefined {
  const raw = str(req, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n)) throw errors.invalid('query', name, `\`${name}\` must be a number; got "${raw}".`);
  return n;
}

/** Whether `include` asks for `what` (`?include=questions` on a form, `?include=fields` on a datatable). */
export function included(req: Request, what: string): boolean {
  return str(req, 'include') === what;
}

export function bool(req: Request, name: string): boolean {
  const raw = str(req, name);
  if (raw === undefined) return false;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw errors.invalid('query', name, `\`${name}\` must be true or false; got "${raw}".`);
}

/**
 * The `created` bounds of two query parameters: `from` is inclusive, `to` is read by `toBound` (the
 * styles differ there); either may be absent.
 */
function createdRange(req: Request, from: string, to: string, toBound: (raw: string, name: string) => DateBound): DateBound[] {
  const bounds: DateBound[] = [];
  const start = str(req, from);
  const end = str(req, to);
  if (start !== undefined) bounds.push(fromBound(start, from));
  if (end !== undefined) bounds.push(toBound(end, to));
  return bounds;
}

/** Style A dates: `created_after` (inclusive) and `created_before` (exclusive). */
export const createdRangeA = (req: Request): DateBound[] => createdRange(req, 'created_after', 'created_before', beforeBound);

/** Style B dates: `start_date` (inclusive), `end_date` (its whole day, or its instant). */
export const createdRangeB = (req: Request): DateBound[] => createdRange(req, 'start_date', 'end_date', endDateBound);

/** The workspace the access check approved (set by platform/access). */
export function workspaceOf(req: Request): string {
  if (req.workspaceId === undefined) throw errors.workspaceAccessDenied();
  return req.workspaceId;
}

/** The authenticated key making the request (set by platform/auth). */
export function callerOf(req: Request): ApiKeyMeta {
  if (req.auth === undefined) throw errors.invalidApiKey();
  return req.auth;
}

/**
 * The JSON body as the operation's request schema `T` (a type of src/wire/types.gen.ts): the OpenAPI validator has
 * checked it against that schema before any handler runs; `{}` when there is none.
 */
export function bodyOf<T>(req: Request): T {
  return (req.body ?? {}) as T;
}

export function param(req: Request, name: string): string {
  return String(req.params[name]);
}
