/**
 * Email links (docs/collecting.md, "Email links"): a link to a hosted form page that knows whom it was sent to.
 *
 * A token (token-codec.ts) is `base64url(claims JSON) "." base64url(HMAC-SHA256(secret, claims part))`; the claims
 * carry the workspace, form, email, email_id, row_id, flow_id, expiry and how many responses the link takes
 * (`max_responses`, default 1), so nothing is stored when a link is minted; the responses it took are counted
 * in `email_link_uses` (link-uses.store.ts). The secret lives in the database (server-secrets.store.ts). Following the link records a `click`
 * email event, loading the open-tracking GIF an `open` (both through the email-events core).
 */
import type { Knex } from 'knex';
import { customAlphabet } from 'nanoid';
import { rowIdInWorkspace } from '../datatables/datatables.store';
import { errors, type ErrorLocation } from '../errors';
import { formIdInWorkspace } from '../forms/forms.store';
import { isEmailAddress } from '../responses/answers';
import { linkSecret } from './server-secrets.store';
import { addressHash, isSuppressed } from '../respondents/erasure.store';
import { openToken, sealToken } from './token-codec';
import { DAY_MS } from '../query/dates';

const TOKEN_VERSION = 1;
export const DEFAULT_EXPIRES_IN_DAYS = 30;
export const MAX_EXPIRES_IN_DAYS = 90;
/** A link takes one response unless minted to take more (`max_responses`, 1–1000). */
export const DEFAULT_MAX_RESPONSES = 1;
export const MAX_MAX_RESPONSES = 1000;
const randomId = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 16);

/** What a link token says (all of it signed). */
export interface LinkClaims {
  workspaceId: string;
  formId: string;
  email: string;
  emailId: string;
  rowId: string | null;
  flowId: string | null;
  /** Whole seconds (the token stores Unix seconds). */
  expiresAt: Date;
  /** How many responses the link takes (1–1000; tokens minted before the field existed: 1). */
  maxResponses: number;
}

/** A minted link: its claims, the token and the two URLs built on PUBLIC_URL. */
export interface MintedLink extends LinkClaims {
  token: string;
  /** `{publicUrl}/f/{form_id}?t={token}` */
  url: string;
  /** `{publicUrl}/e/{token}.gif` */
  openUrl: string;
}

export interface MintLinkInput {
  formId: string;
  email: string;
  emailId?: string | undefined;
  rowId?: string | null | undefined;
  flowId?: string | null | undefined;
  /** 1–90, default 30. */
  expiresInDays?: number | undefined;
  /** 1–1000, default 1. */
  maxResponses?: number | undefined;
}

interface WireClaims {
  v: number;
  ws: string;
  f: string;
  e: string;
  m: string;
  r: string | null;
  fl: string | null;
  x: number;
  /** max_responses; absent in tokens minted before it existed (then 1). */
  n?: number;
}

function encode(secret: Buffer, c: LinkClaims): string {
  const wire: WireClaims = {
    v: TOKEN_VERSION,
    ws: c.workspaceId,
    f: c.formId,
    e: c.email,
    m: c.emailId,
    r: c.rowId,
    fl: c.flowId,
    x: Math.floor(c.expiresAt.getTime() / 1000),
    n: c.maxResponses,
  };
  return sealToken(secret, wire);
}

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const strOrNull = (v: unknown): v is string | null => v === null || str(v);

/** The claims of a well-signed email-link token, or undefined for anything else. */
function decode(secret: Buffer, token: string): LinkClaims | undefined {
  const w = openToken(secret, token) as Partial<WireClaims> | undefined;
  if (!w) return undefined;
  if (w.v !== TOKEN_VERSION || !str(w.ws) || !str(w.f) || !str(w.e) || !str(w.m) || !strOrNull(w.r) || !strOrNull(w.fl)) {
    return undefined;
  }
  if (typeof w.x !== 'number' || !Number.isInteger(w.x)) return undefined;
  const n = w.n ?? DEFAULT_MAX_RESPONSES;
  if (!Number.isInteger(n) || n < 1) return undefined;
  return { workspaceId: w.ws, formId: w.f, email: w.e, emailId: w.m, rowId: w.r, flowId: w.fl, expiresAt: new Date(w.x * 1000), maxResponses: n };
}

/**
 * Mints an email link for a form of the workspace (POST {ws}/forms/{form_id}/links).
 * @param publicUrl PUBLIC_URL without a trailing slash; the base of `url` and `openUrl`.
 * @param now the minting instant (tests); the expiry is `now + expiresInDays` days, whole seconds.
 * @returns the claims, the token and both URLs; `emailId` is generated (`em_…`) when not given, `maxResponses`
 *   is 1 when not given.
 * @throws AppError resource_not_found when the form is not the workspace's; validation_error naming
 *   `email` (not an address), `row_id` (not a row of the workspace), `expires_in_days` (not 1–90) or
 *   `max_responses` (not 1–1000).
 * Spec: docs/collecting.md, "Email links".
 */
export async function mintLink(db: Knex, workspaceId: string, input: MintLinkInput, publicUrl: string, now = new Date()): Promise<MintedLink> {
  const days = input.expiresInDays ?? DEFAULT_EXPIRES_IN_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRES_IN_DAYS) {
    throw errors.invalid('body', 'expires_in_days', `\`expires_in_days\` must be an integer 1–${MAX_EXPIRES_IN_DAYS}; got ${days}`);
  }
  const maxResponses = input.maxResponses ?? DEFAULT_MAX_RESPONSES;
  if (!Number.isInteger(maxResponses) || maxResponses < 1 || maxResponses > MAX_MAX_RESPONSES) {
    throw errors.invalid('body', 'max_responses', `\`max_responses\` must be an integer 1–${MAX_MAX_RESPONSES}; got ${maxResponses}`);
  }
  if (!isEmailAddress(input.email)) {
    throw errors.invalid('body', 'email', `\`email\` must be an e-mail address; got "${input.email}"`);
  }
  if (await isSuppressed(db, workspaceId, await addressHash(db, input.email.trim().toLowerCase()))) throw errors.addressSuppressed('body', 'email');
  const form = await formIdInWorkspace(db, workspaceId, input.formId);
  if (!form) throw errors.notFound('form', input.formId);
  const rowId = input.rowId ?? null;
  if (rowId !== null) {
    const row = await rowIdInWorkspace(db, workspaceId, rowId);
    if (!row) throw errors.invalid('body', 'row_id', `\`row_id\` "${rowId}" is not a row of this workspace`);
  }
  const claims: LinkClaims = {
    workspaceId,
    formId: input.formId,
    email: input.email,
    emailId: input.emailId ?? `em_${randomId()}`,
    rowId,
    flowId: input.flowId ?? null,
    expiresAt: new Date(Math.floor((now.getTime() + days * DAY_MS) / 1000) * 1000),
    maxResponses,
  };
  const token = encode(await linkSecret(db), claims);
  return {
    ...claims,
    token,
    url: `${publicUrl}/f/${encodeURIComponent(input.formId)}?t=${token}`,
    openUrl: `${publicUrl}/e/${token}.gif`,
  };
}

/**
 * Checks an email-link token for a form and returns what it says.
 * @param location where the token came from, for the error's `details` (`query` on the page, `body` in JSON).
 * @throws AppError validation_error naming `t` when the token is tampered with, malformed or minted
 *   for another form; 410 link_expired when it is past its expiry (checked after the signature).
 * Spec: docs/collecting.md, "Email links".
 */
export async function verifyLinkToken(db: Knex, token: string, formId: string, now = new Date(), location: ErrorLocation = 'query'): Promise<LinkClaims> {
  const claims = decode(await linkSecret(db), token);
  if (!claims) throw errors.invalid(location, 't', '`t` is not a valid email-link token (it was changed or cut short).');
  if (claims.formId !== formId) throw errors.invalid(location, 't', '`t` is an email link for another form.');
  if (claims.expiresAt.getTime() <= now.getTime()) throw errors.linkExpired();
  if (await suppressed(db, claims)) throw errors.addressSuppressed(location, 't');
  return claims;
}

/** True when an erasure put the link's address on its workspace's suppression list. */
async function suppressed(db: Knex, claims: LinkClaims): Promise<boolean> {
  return isSuppressed(db, claims.workspaceId, await addressHash(db, claims.email.trim().toLowerCase()));
}

/**
 * The claims of a valid, unexpired token whatever its form (the open-tracking GIF), else undefined (also when its
 * address is suppressed).
 */
export async function readLinkToken(db: Knex, token: string, now = new Date()): Promise<LinkClaims | undefined> {
  const claims = decode(await linkSecret(db), token);
  if (!claims || claims.expiresAt.getTime() <= now.getTime()) return undefined;
  // A suppressed address's opens and clicks are not recorded (docs/data-rights.md, "Erasing a person").
  return (await suppressed(db, claims)) ? undefined : claims;
}
