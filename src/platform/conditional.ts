/**
 * Conditional lists and resources (issue 31 item 4; docs/api-rules.md, "Conditional requests"): every GET of openapi/
 * that declares a `304` (Operation.conditional) carries a weak `ETag` made, before the handler runs, from
 * - the change version of the workspace (core/changes/change-marks.store.ts: every write of any writer moves it; for
 *   `GET /workspaces`, of each of the key's workspaces), read on the database that answers (a replica's own);
 * - what was asked: the path and query as sent, the style, the key (its scopes and workspaces shape answers), the
 *   scheme and host (`links` are built on them), and the build (a hash of openapi/ and the package version);
 * - what the clock or a write outside the version changes: the UTC day for analytics (their default ranges end
 *   today), the keys' latest `last_used_at` for the key list.
 * Not from rendering the answer. `If-None-Match` that matches (RFC 9110 weak comparison, `*`, lists: Express's
 * `req.fresh`, the `fresh` package) answers `304` without the handler, so no list query runs; the key's budget is
 * read for the headers but not counted (rate-limit.ts, settleKeyBudget). Any other answer counts as usual.
 * The version is read BEFORE the answer's queries, so an answer holds at least the changes its tag covers.
 * The form schema keeps its own strong content tag (its handler answers its 304).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Request, RequestHandler, Response } from 'express';
import { keysLastUsed } from '../core/api-keys/api-keys.store';
import { canonicalJson } from '../core/canonical-json';
import { changeVersion } from '../core/changes/change-marks.store';
import type { DbHandle } from '../db';
import { loadOpenApiDocument } from './openapi';
import { projectRoot } from './paths';
import { settleKeyBudget } from './rate-limit';

/** Operations whose handler keeps its own validator and 304 (a strong content hash). */
const OWN_VALIDATOR: ReadonlySet<string | undefined> = new Set(['getFormSchema']);

let build: string | undefined;
/** The build's part of every tag: openapi/ and the package version (a release that changes answers moves every tag). */
function buildIdentity(): string {
  if (build === undefined) {
    const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string };
    build = createHash('sha256').update(pkg.version).update(canonicalJson(loadOpenApiDocument())).digest('base64url');
  }
  return build;
}

/** What besides the version an operation's answer depends on, by operationId. */
const EXTRA: Record<string, (db: DbHandle, req: Request) => Promise<string>> = {
  listApiKeys: (db, req) => keysLastUsed(db, req.context.workspaceId!),
};

/**
 * The entity tag of a conditional GET (see the module comment), weak: two answers with the same tag mean the same,
 * although one read during a write may already hold it.
 */
export async function entityTag(db: DbHandle, req: Request): Promise<string> {
  const op = req.context.operation!;
  const auth = req.context.auth!;
  const workspaces = req.context.workspaceId !== undefined ? [req.context.workspaceId] : [...auth.workspaceIds].sort();
  const [version, extra] = await Promise.all([changeVersion(db, workspaces), EXTRA[op.operationId ?? '']?.(db, req) ?? '']);
  const day = op.template.includes('/analytics/') ? new Date().toISOString().slice(0, 10) : '';
  const parts = [buildIdentity(), version, workspaces, req.originalUrl, req.style, auth.id, req.protocol, req.get('host') ?? '', day, extra];
  return `W/"${createHash('sha256').update(JSON.stringify(parts)).digest('base64url')}"`;
}

/**
 * The step before the API routers (on each database's routers with read replicas): on a conditional GET, sets `ETag`
 * and `Cache-Control: private, no-cache` and answers `304` when `If-None-Match` matches; settles a deferred key budget
 * on every request it sees (a 304 reads it, any other answer counts it).
 */
export function conditionalGet(db: DbHandle): RequestHandler {
  return async (req, res, next) => {
    const op = req.context.operation;
    if (!op?.conditional || OWN_VALIDATOR.has(op.operationId) || !req.context.auth) {
      if (!OWN_VALIDATOR.has(op?.operationId)) await settleKeyBudget(req, res, false);
      return next();
    }
    res.setHeader('ETag', await entityTag(db, req));
    res.setHeader('Cache-Control', 'private, no-cache');
    if (!(await answeredNotModified(req, res))) next();
  };
}

/**
 * Answers `304` when `If-None-Match` matches the `ETag` already set on `res` (RFC 9110: `*`, lists, weak comparison,
 * through Express's `req.fresh`), reading the key's budget without counting it; otherwise counts the budget.
 * @returns true when the 304 was sent (the caller stops).
 * @throws AppError rate_limit_exceeded (429) past the budget, when the answer is not a 304.
 */
export async function answeredNotModified(req: Request, res: Response): Promise<boolean> {
  const notModified = req.fresh;
  await settleKeyBudget(req, res, notModified);
  if (notModified) res.status(304).end();
  return notModified;
}
