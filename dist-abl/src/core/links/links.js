"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_EXPIRES_IN_DAYS = exports.DEFAULT_EXPIRES_IN_DAYS = void 0;
exports.mintLink = mintLink;
exports.verifyLinkToken = verifyLinkToken;
exports.readLinkToken = readLinkToken;
/**
 * Email links (CONTRACT section 12): a link to a hosted form page that knows whom it was sent to.
 *
 * A token is `base64url(claims JSON) "." base64url(HMAC-SHA256(secret, claims part))`; the claims
 * carry the workspace, form, email, email_id, row_id, flow_id and expiry, so nothing is stored per
 * link. The secret lives in the database (link-secret.ts). Following the link records a `click`
 * email event, loading the open-tracking GIF an `open` (both through the email-events core).
 */
const node_crypto_1 = require("node:crypto");
const nanoid_1 = require("nanoid");
const errors_1 = require("../errors");
const answers_1 = require("../responses/answers");
const link_secret_1 = require("./link-secret");
const TOKEN_VERSION = 1;
exports.DEFAULT_EXPIRES_IN_DAYS = 30;
exports.MAX_EXPIRES_IN_DAYS = 90;
const DAY_MS = 86_400_000;
const randomId = (0, nanoid_1.customAlphabet)('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 16);
function sign(secret, payload) {
    return (0, node_crypto_1.createHmac)('sha256', secret).update(payload).digest();
}
function encode(secret, c) {
    const wire = {
        v: TOKEN_VERSION,
        ws: c.workspaceId,
        f: c.formId,
        e: c.email,
        m: c.emailId,
        r: c.rowId,
        fl: c.flowId,
        x: Math.floor(c.expiresAt.getTime() / 1000),
    };
    const payload = Buffer.from(JSON.stringify(wire)).toString('base64url');
    return `${payload}.${sign(secret, payload).toString('base64url')}`;
}
const str = (v) => typeof v === 'string' && v.length > 0;
const strOrNull = (v) => v === null || str(v);
/** The claims of a well-signed token, or undefined for anything else (no detail: a forger learns nothing). */
function decode(secret, token) {
    if (typeof token !== 'string' || token.length > 4096)
        return undefined;
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.'))
        return undefined;
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = sign(secret, payload);
    if (given.length !== expected.length || !(0, node_crypto_1.timingSafeEqual)(given, expected))
        return undefined;
    let w;
    try {
        w = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    }
    catch {
        return undefined;
    }
    if (w.v !== TOKEN_VERSION || !str(w.ws) || !str(w.f) || !str(w.e) || !str(w.m) || !strOrNull(w.r) || !strOrNull(w.fl)) {
        return undefined;
    }
    if (typeof w.x !== 'number' || !Number.isInteger(w.x))
        return undefined;
    return { workspaceId: w.ws, formId: w.f, email: w.e, emailId: w.m, rowId: w.r, flowId: w.fl, expiresAt: new Date(w.x * 1000) };
}
/**
 * Mints an email link for a form of the workspace (POST {ws}/forms/{form_id}/links).
 * @param publicUrl PUBLIC_URL without a trailing slash; the base of `url` and `openUrl`.
 * @param now the minting instant (tests); the expiry is `now + expiresInDays` days, whole seconds.
 * @returns the claims, the token and both URLs; `emailId` is generated (`em_…`) when not given.
 * @throws AppError resource_not_found when the form is not the workspace's; validation_error naming
 *   `email` (not an address), `row_id` (not a row of the workspace) or `expires_in_days` (not 1–90).
 * Spec: CONTRACT section 12.
 */
async function mintLink(db, workspaceId, input, publicUrl, now = new Date()) {
    const days = input.expiresInDays ?? exports.DEFAULT_EXPIRES_IN_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > exports.MAX_EXPIRES_IN_DAYS) {
        throw errors_1.errors.invalid('body', 'expires_in_days', `\`expires_in_days\` must be an integer 1–${exports.MAX_EXPIRES_IN_DAYS}; got ${days}`);
    }
    if (!(0, answers_1.isEmailAddress)(input.email)) {
        throw errors_1.errors.invalid('body', 'email', `\`email\` must be an e-mail address; got "${input.email}"`);
    }
    const form = await db('forms').first('id').where({ workspace_id: workspaceId, id: input.formId });
    if (!form)
        throw errors_1.errors.notFound('form', input.formId);
    const rowId = input.rowId ?? null;
    if (rowId !== null) {
        const row = await db('datatable_rows').first('row_id').where({ workspace_id: workspaceId, row_id: rowId });
        if (!row)
            throw errors_1.errors.invalid('body', 'row_id', `\`row_id\` "${rowId}" is not a row of this workspace`);
    }
    const claims = {
        workspaceId,
        formId: input.formId,
        email: input.email,
        emailId: input.emailId ?? `em_${randomId()}`,
        rowId,
        flowId: input.flowId ?? null,
        expiresAt: new Date(Math.floor((now.getTime() + days * DAY_MS) / 1000) * 1000),
    };
    const token = encode(await (0, link_secret_1.linkSecret)(db), claims);
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
 * Spec: CONTRACT section 12.
 */
async function verifyLinkToken(db, token, formId, now = new Date(), location = 'query') {
    const claims = decode(await (0, link_secret_1.linkSecret)(db), token);
    if (!claims)
        throw errors_1.errors.invalid(location, 't', '`t` is not a valid email-link token (it was changed or cut short).');
    if (claims.formId !== formId)
        throw errors_1.errors.invalid(location, 't', '`t` is an email link for another form.');
    if (claims.expiresAt.getTime() <= now.getTime())
        throw errors_1.errors.linkExpired();
    return claims;
}
/**
 * The claims of a valid, unexpired token whatever its form (the open-tracking GIF), else undefined.
 */
async function readLinkToken(db, token, now = new Date()) {
    const claims = decode(await (0, link_secret_1.linkSecret)(db), token);
    return claims && claims.expiresAt.getTime() > now.getTime() ? claims : undefined;
}
//# sourceMappingURL=links.js.map