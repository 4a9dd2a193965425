/**
 * Reading query values in adapters. The OpenAPI validator has already checked types and ranges of
 * declared parameters (and coerced them); these helpers add the style-specific rules the shared
 * paths need (CONTRACT section 7: limits are rejected, never clamped) and the date rules.
 */
import type { Request } from 'express';
import { errors } from '../core/errors';
import { beforeBound, endDateBound, fromBound, type DateBound } from '../core/query/dates';

export function str(req: Request, name: string): string | undefined {
  const v = (req.query as Record<string, unknown>)[name];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw errors.invalid('query', name, `\`${name}\` may be given once.`);
  return String(v);
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

export function bool(req: Request, name: string): boolean {
  const raw = str(req, name);
  if (raw === undefined) return false;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw errors.invalid('query', name, `\`${name}\` must be true or false; got "${raw}".`);
}

/** Style A dates: `created_after` (inclusive) and `created_before` (exclusive). */
export function createdRangeA(req: Request): DateBound[] {
  const bounds: DateBound[] = [];
  const after = str(req, 'created_after');
  const before = str(req, 'created_before');
  if (after !== undefined) bounds.push(fromBound(after, 'created_after'));
  if (before !== undefined) bounds.push(beforeBound(before, 'created_before'));
  return bounds;
}

/** Style B dates: `start_date` (inclusive), `end_date` (its whole day, or its instant). */
export function createdRangeB(req: Request): DateBound[] {
  const bounds: DateBound[] = [];
  const start = str(req, 'start_date');
  const end = str(req, 'end_date');
  if (start !== undefined) bounds.push(fromBound(start, 'start_date'));
  if (end !== undefined) bounds.push(endDateBound(end, 'end_date'));
  return bounds;
}

/** The workspace the access check approved (set by platform/access). */
export function workspaceOf(req: Request): string {
  if (req.workspaceId === undefined) throw errors.workspaceAccessDenied();
  return req.workspaceId;
}

export function param(req: Request, name: string): string {
  return String((req.params as Record<string, string>)[name]);
}
