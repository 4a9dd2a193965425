/**
 * Dashboard links (docs/analytics.md, "Dashboard links"): a signed URL to a form's results page, for people
 * without an API key. The token is the email links' codec and secret (token-codec.ts, server-secrets.store.ts) with
 * its own claims `{v, k: "d", ws, id, x}`; the row in `dashboard_links` (migration 010) is the authority,
 * read on every page request, so a revoke or an expiry refuses the link at once on every instance. The row records
 * the minting key (`created_by`, migration 011): the link never outlives it; the list never shows a URL.
 *
 * The download token of a page is one-time per format: `{v, k: "dx", ws, id, n, x}` signed alike, claimed by
 * inserting the nonce `n` and the format into `dashboard_download_claims` (a second claim hits the primary key).
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { customAlphabet } from 'nanoid';
import { affectedRows, type DbHandle } from '../../db';
import { deleteOlderInBatches, type BatchOptions } from '../../db/batches';
import { errors } from '../errors';
import { expiryWithinCreator, type Creator } from '../api-keys/lineage';
import { DAY_MS, futureDateTime } from '../query/dates';
import type { ResponseRecord } from '../responses/responses.types';
import { formIdInWorkspace } from '../forms/forms.store';
import { linkSecret } from '../links/server-secrets.store';
import { DEFAULT_EXPIRES_IN_DAYS, MAX_EXPIRES_IN_DAYS } from '../links/links';
import { openToken, sealToken } from '../links/token-codec';

const TOKEN_VERSION = 1;
/** A page's download links work this long after the page was rendered. */
export const DOWNLOAD_TOKEN_TTL_MS = 60 * 60_000;
const randomId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 16);

/** A link as the list shows it: never its URL (docs/analytics.md, "Dashboard links"). */
export interface DashboardLink {
  id: string;
  formId: string;
  expiresAt: Date;
  createdAt: Date;
  /** The key that minted it; null for a link minted before keys were recorded (migration 011). */
  createdBy: string | null;
  /** Its downloads carry respondents' addresses and email answers (the opt-in at minting). */
  includeAddresses: boolean;
}

/** A link as its mint answers it, the only time its URL is shown. */
export interface MintedDashboardLink extends DashboardLink {
  /** `{publicUrl}/d/{token}` */
  url: string;
}

/** What a valid link's page needs: the row, alive. */
export interface ActiveDashboardLink {
  workspaceId: string;
  id: string;
  formId: string;
  expiresAt: Date;
  includeAddresses: boolean;
}

interface LinkRow {
  workspace_id: string;
  id: string;
  form_id: string;
  expires_at: Date;
  created_at: Date;
  revoked_at: Date | null;
  created_by: string | null;
  include_addresses: boolean;
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

function linkToken(secret: Buffer, workspaceId: string, id: string, expiresAt: Date): string {
  return sealToken(secret, { v: TOKEN_VERSION, k: 'd', ws: workspaceId, id, x: seconds(expiresAt) });
}

function toLink(row: LinkRow): DashboardLink {
  return {
    id: row.id,
    formId: row.form_id,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    createdBy: row.created_by,
    includeAddresses: row.include_addresses,
  };
}

/**
 * The expiry of a new link: `expiresAt` (an ISO 8601 date-time string) or now + 30 days, whole seconds; never later
 * than the minting key's expiry (the default is cut to it; docs/writes-keys-limits.md, "Key lineage").
 * @param field the body field's name in the caller's style (`expires_at`, `expiresAt`) for the 400.
 * @throws AppError validation_error naming `field` when it is not a date-time with an offset, not in the future, more
 *   than 90 days ahead or later than the minting key's expiry.
 */
export function linkExpiry(expiresAt: string | undefined, field: string, minter: Creator, now = new Date()): Date {
  const whole = (ms: number) => new Date(Math.floor(ms / 1000) * 1000);
  if (expiresAt === undefined) {
    const byDefault = now.getTime() + DEFAULT_EXPIRES_IN_DAYS * DAY_MS;
    return whole(minter.expiresAt === null ? byDefault : Math.min(byDefault, minter.expiresAt.getTime()));
  }
  const at = futureDateTime(expiresAt, field, now);
  if (at.getTime() > now.getTime() + MAX_EXPIRES_IN_DAYS * DAY_MS) {
    throw errors.invalid('body', field, `\`${field}\` must be at most ${MAX_EXPIRES_IN_DAYS} days ahead; got "${expiresAt}".`);
  }
  expiryWithinCreator(at, minter, field);
  return whole(at.getTime());
}

/** What a new link is. */
export interface DashboardLinkInput {
  workspaceId: string;
  formId: string;
  /** From linkExpiry. */
  expiresAt: Date;
  /** The opt-in: its downloads carry respondents' addresses and email answers. */
  includeAddresses: boolean;
  /** The minting key. */
  minter: Creator;
}

/**
 * Mints a dashboard link for a form of the workspace (POST {ws}/forms/{form_id}/dashboard-links), recording the
 * minting key: revoking or expiring that key (or a key above it) revokes or expires the link (migration 011).
 * @param db the root handle (the secret is read through it, never inside a transaction), or the caller's transaction
 *   when `secret` is given (linkSecret, read on the root handle before the transaction opened).
 * @param publicUrl PUBLIC_URL without a trailing slash.
 * @returns the link with its URL: the only answer that shows it.
 * @throws AppError resource_not_found when the form is not the workspace's.
 */
export async function mintDashboardLink(db: Knex, input: DashboardLinkInput, publicUrl: string, linkKey?: Buffer): Promise<MintedDashboardLink> {
  const secret = linkKey ?? (await linkSecret(db));
  const form = await formIdInWorkspace(db, input.workspaceId, input.formId);
  if (!form) throw errors.notFound('form', input.formId);
  const [row] = (await db('dashboard_links')
    .insert({
      workspace_id: input.workspaceId,
      id: `dl_${randomId()}`,
      form_id: input.formId,
      expires_at: input.expiresAt,
      created_by: input.minter.id,
      include_addresses: input.includeAddresses,
    })
    .returning('*')) as LinkRow[];
  return { ...toLink(row!), url: `${publicUrl}/d/${linkToken(secret, row!.workspace_id, row!.id, row!.expires_at)}` };
}

/**
 * The form's links that are not revoked (expired ones included, until revoked), oldest first, without their URLs
 * (a bearer URL is shown once, at minting).
 * @throws AppError resource_not_found when the form is not the workspace's.
 */
export async function listDashboardLinks(db: Knex, workspaceId: string, formId: string): Promise<DashboardLink[]> {
  const form = await formIdInWorkspace(db, workspaceId, formId);
  if (!form) throw errors.notFound('form', formId);
  const rows = (await db('dashboard_links')
    .where({ workspace_id: workspaceId, form_id: formId })
    .whereNull('revoked_at')
    .orderBy([{ column: 'created_at' }, { column: 'id' }])) as LinkRow[];
  return rows.map(toLink);
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
  // The minting key is read in the same query: a link whose key is revoked or expired is refused even if a row
  // escaped migration 011's cascade (belt and braces; the cascade keeps the link's own row in step).
  const row = (await db('dashboard_links as l')
    .first('l.*', 'k.revoked_at as key_revoked_at', 'k.expires_at as key_expires_at')
    .leftJoin('api_keys as k', 'k.id', 'l.created_by')
    .where({ 'l.workspace_id': c.ws, 'l.id': c.id })) as (LinkRow & { key_revoked_at: Date | null; key_expires_at: Date | null }) | undefined;
  const over = (d: Date | null) => d !== null && d.getTime() <= now.getTime();
  if (!row || row.revoked_at !== null || over(row.expires_at) || row.key_revoked_at !== null || over(row.key_expires_at)) return undefined;
  return { workspaceId: row.workspace_id, id: row.id, formId: row.form_id, expiresAt: row.expires_at, includeAddresses: row.include_addresses };
}

/**
 * A response as a link without the address opt-in downloads it: no `respondentEmail` and no answer to an
 * `email` question (docs/analytics.md, "Dashboard links"); the rest unchanged.
 */
export function withoutAddresses(r: ResponseRecord): ResponseRecord {
  return { ...r, respondentEmail: null, answers: r.answers.filter((a) => a.type !== 'email') };
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
  return deleteOlderInBatches(db, { table: 'dashboard_download_claims', key: ['workspace_id', 'nonce', 'format'], column: 'claimed_at', before }, opts);
}
