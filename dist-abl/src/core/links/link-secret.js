"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.linkSecret = linkSecret;
/**
 * The server secret that signs email-link tokens (CONTRACT section 12): kept in the database
 * (`server_secrets`, migration 003) so links survive restarts and every instance verifies alike.
 * Created on first use without a race: `INSERT … ON CONFLICT DO NOTHING` and then `SELECT`, so two
 * instances starting at once both end up with the one row that won. Cached in-process per knex
 * instance after the first read (the secret never changes).
 */
const node_crypto_1 = require("node:crypto");
const SECRET_NAME = 'email_links';
const cache = new WeakMap();
async function loadOrCreate(db) {
    await db('server_secrets')
        .insert({ name: SECRET_NAME, secret: (0, node_crypto_1.randomBytes)(32).toString('base64url') })
        .onConflict('name')
        .ignore();
    const row = await db('server_secrets').first('secret').where({ name: SECRET_NAME });
    if (!row)
        throw new Error('server_secrets: the email-link secret could not be created');
    return Buffer.from(row.secret, 'base64url');
}
/**
 * The 32-byte HMAC key of email links.
 * @param db the root knex instance, never a transaction: a secret created inside a transaction that
 *   rolls back would be cached here while missing from the database.
 * @throws Error when given a transaction, or when the database cannot be read (the caller's 5xx).
 */
function linkSecret(db) {
    if (db.isTransaction)
        throw new Error('linkSecret needs the root database handle, not a transaction');
    let secret = cache.get(db);
    if (!secret) {
        secret = loadOrCreate(db);
        cache.set(db, secret);
        // A failed read (database down) is retried by the next caller instead of being cached.
        secret.catch(() => cache.delete(db));
    }
    return secret;
}
//# sourceMappingURL=link-secret.js.map