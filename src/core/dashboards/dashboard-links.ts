/**
 * Dashboard links (docs/analytics.md, "Dashboard links"): a signed URL to a form's results page, for people
 * without an API key. The token is the email links' codec and secret (token-codec.ts, link-secret.ts) with
 * its own claims `{v, k: "d", ws, id, x}`; the row in `dashboard_links` (migration 010) is the authority,
 * read on every page request, so a revoke or an expiry refuses the link at once on every instance.
 *
 * The download token of a page is one-time per format: `{v, k: "dx", ws, id, n, x}` signed alike, claimed by
 * inserting the nonce `n` and the format into `dashboard_download_claims` (a second claim hits the primary key).
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { customAlphabet } from 'nanoid';
import type { DbHandle } from '../../db';
import { affectedRows } from '../../db';
import { deleteInBatches, type BatchOptions } from '../../db/batches';
import { errors } from '../errors';
import { futureDateTime } from '../query/dates';
import { linkSecret } from '../links/link-secret';
import { DEFAULT_EXPIRES_IN_DAYS, MAX_EXPIRES_IN_DAYS } from '../links/links';
import { openToken, sealToken } from '../links/token-codec';

const TOKEN_VERSION = 1;
const DAY_MS = 86_400_000;
/** A page's download links work this long after the page was rendered. */
export const DOWNLOAD_TOKEN_TTL_MS = 60 * 60_000;
const randomId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 16);

export interface DashboardLink {
  id: string;
  formId: string;
  /** `{publicUrl}/d/{token}` */
  url: string;
  expiresAt: Date;
  createdAt: Date;
}

/** What a valid link's page needs: the row, alive. */
export interface ActiveDashboardLink {
  workspaceId: string;
  id: string;
  formId: string;
  expiresAt: Date;
}

interface LinkRow {
  workspace_id: string;
  id: string;
  form_id: string;
  expires_at: Date;
  created_at: Date;
  revoked_at: Date | null;
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

function linkToken(secret: Buffer, workspaceId: string, id: string, expiresAt: Date): string {
  return sealToken(secret, { v: TOKEN_VERSION, k: 'd', ws: workspaceId, id, x: seconds(expiresAt) });
}

function toLink(secret: Buffer, publicUrl: string, row: LinkRow): DashboardLink {
  return {
    id: row.id,
    formId: row.form_id,
    url: `${publicUrl}/d/${linkToken(secret, row.workspace_id, row.id, row.expires_at)}`,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  };
}

/**
 * The expiry of a new link: `expiresAt` (an ISO 8601 date-time string) or now + 30 days, whole seconds.
 * @param field the body field's name in the caller's style (`expires_at`, `expiresAt`) for the 400.
 * @throws AppError validation_error naming `field` when it is not a date-time with an offset, not in the future or more
 *   than 90 days ahead.
 */
export function linkExpiry(expiresAt: string | undefined, field: string, now = new Date()): Date {
  const whole = (ms: number) => new Date(Math.floor(ms / 1000) * 1000);
  if (expiresAt === undefined) return whole(now.getTime() + DEFAULT_EXPIRES_IN_DAYS * DAY_MS);
  const t = futureDateTime(expiresAt, field, now).getTime();
  if (t > now.getTime() + MAX_EXPIRES_IN_DAYS * DAY_MS) {
    throw errors.invalid('body', field, `\`${field}\` must be at most ${MAX_EXPIRES_IN_DAYS} days ahead; got "${expiresAt}".`);
  }
  return whole(t);
}

/**
 * Mints a dashboard link for a form of the workspace (POST {ws}/forms/{form_id}/dashboard-links).
 * @param db the root handle (the secret is read through it, never inside a transaction).
 * @param publicUrl PUBLIC_URL without a trailing slash.
 * @throws AppError resource_not_found when the form is not the workspace's.
 */
export async function mintDashboardLink(db: Knex, workspaceId: string, formId: string, expiresAt: Date, publicUrl: string): Promise<DashboardLink> {
  const secret = await linkSecret(db);
  const form = await db('forms').first('id').where({ workspace_id: workspaceId, id: formId });
  if (!form) throw errors.notFound('form', formId);
  const [row] = (await db('dashboard_links')
    .insert({ workspace_id: workspaceId, id: `dl_${randomId()}`, form_id: formId, expires_at: expiresAt })
    .returning('*')) as LinkRow[];
  return toLink(secret, publicUrl, row!);
}

/**
 * The form's links that are not revoked (expired ones included, until revoked), oldest first.
 * @throws AppError resource_not_found when the form is not the workspace's.
 */
export async function listDashboardLinks(db: Knex, workspaceId: string, formId: string, publicUrl: string): Promise<DashboardLink[]> {
  const form = await db('forms').first('id').where({ workspace_id: workspaceId, id: formId });
  if (!form) throw errors.notFound('form', formId);
  const rows = (await db('dashboard_links')
    .where({ workspace_id: workspaceId, form_id: formId })
    .whereNull('revoked_at')
    .orderBy([{ column: 'created_at' }, { column: 'id' }])) as LinkRow[];
  if (rows.length === 0) return [];
  // A link exists, so its mint created the secret: this read never writes (it may run on a read replica).
  const secret = await linkSecret(db);
  return rows.map((r) => toLink(secret, publicUrl, r));
}

/**
 * Revokes a link (DELETE …/dashboard-links/{id}): its page answers 404 from the next request on, everywhere.
 * @throws AppError resource_not_found when the form has no such link, or it was revoked already.
 */
export async function revokeDashboardLink(db: DbHandle, workspaceId: string, formId: string, linkId: string, now = new Date()): Promise<void> {
  const n = await affectedRows(
    db('dashboard_links').where({ workspace_id: workspaceId, form_id: formId, id: linkId }).whereNull('revoked_at').update({ revoked_at: now }),
  );
  if (n === 0) throw errors.notFound('dashboard link', linkId);
}

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * The link a page token names when it is valid now: well signed, its row present, not revoked, not expired.
 * @returns undefined for anything else (the page answers 404 alike, so nothing is learned from it).
 */
export async function activeDashboardLink(db: Knex, token: string, now = new Date()): Promise<ActiveDashboardLink | undefined> {
  const c = openToken(await linkSecret(db), token);
  if (!c || c.v !== TOKEN_VERSION || c.k !== 'd' || !str(c.ws) || !str(c.id)) return undefined;
  const row = (await db('dashboard_links').first('*').where({ workspace_id: c.ws, id: c.id })) as LinkRow | undefined;
  if (!row || row.revoked_at !== null || row.expires_at.getTime() <= now.getTime()) return undefined;
  return { workspaceId: row.workspace_id, id: row.id, formId: row.form_id, expiresAt: row.expires_at };
}

/** A one-time download token for the page of `link`, good for DOWNLOAD_TOKEN_TTL_MS (no write: claimed on use). */
export async function mintDownloadToken(db: Knex, link: ActiveDashboardLink, now = new Date()): Promise<string> {
  const x = seconds(new Date(now.getTime() + DOWNLOAD_TOKEN_TTL_MS));
  return sealToken(await linkSecret(db), { v: TOKEN_VERSION, k: 'dx', ws: link.workspaceId, id: link.id, n: randomBytes(12).toString('base64url'), x });
}

/**
 * Claims a page's download token for one format (`csv`, `ndjson`) of `link`: true the first time, false when it
 * was used for that format already, is for another link, expired or is not one of ours.
 */
export async function claimDownloadToken(db: Knex, link: ActiveDashboardLink, token: string, format: string, now = new Date()): Promise<boolean> {
  const c = openToken(await linkSecret(db), token);
  if (!c || c.v !== TOKEN_VERSION || c.k !== 'dx' || c.ws !== link.workspaceId || c.id !== link.id || !str(c.n)) return false;
  if (typeof c.x !== 'number' || c.x * 1000 <= now.getTime()) return false;
  const inserted = (await db('dashboard_download_claims')
    .insert({ workspace_id: link.workspaceId, nonce: c.n, format, link_id: link.id })
    .onConflict(['workspace_id', 'nonce', 'format'])
    .ignore()
    .returning('nonce')) as unknown[];
  return inserted.length === 1;
}

/**
 * Deletes download claims older than the token lifetime plus a day (their tokens expired long ago), in
 * batches (index `dashboard_download_claims_claimed_idx`). @returns rows deleted.
 */
export function pruneDownloadClaims(db: DbHandle, now: Date, opts: BatchOptions = {}): Promise<number> {
  const before = new Date(now.getTime() - DOWNLOAD_TOKEN_TTL_MS - DAY_MS);
  return deleteInBatches(
    (limit) =>
      affectedRows(
        db('dashboard_download_claims')
          .whereIn(['workspace_id', 'nonce', 'format'], db('dashboard_download_claims').select('workspace_id', 'nonce', 'format').where('claimed_at', '<', before).limit(limit))
          .where('claimed_at', '<', before)
          .delete(),
        'nonce',
      ),
    opts,
  );
}
