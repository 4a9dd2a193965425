/**
 * The server secret that signs email-link tokens (docs/collecting.md, "Email links"): kept in the database
 * (`server_secrets`, migration 003) so links survive restarts and every instance verifies alike.
 * Read, or when missing created on first use without a race: `INSERT … ON CONFLICT DO NOTHING` and then `SELECT`, so two
 * instances starting at once both end up with the one row that won. Cached in-process per knex
 * instance after the first read (the secret never changes).
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

const SECRET_NAME = 'email_links';
const cache = new WeakMap<Knex, Promise<Buffer>>();

async function loadOrCreate(db: Knex): Promise<Buffer> {
  // Read first: a read replica (docs/operations.md, "Read replicas") can read the secret but not insert it.
  const found: { secret: string } | undefined = await db('server_secrets').first('secret').where({ name: SECRET_NAME });
  if (found) return Buffer.from(found.secret, 'base64url');
  await db('server_secrets')
    .insert({ name: SECRET_NAME, secret: randomBytes(32).toString('base64url') })
    .onConflict('name')
    .ignore();
  const row: { secret: string } | undefined = await db('server_secrets').first('secret').where({ name: SECRET_NAME });
  if (!row) throw new Error('server_secrets: the email-link secret could not be created');
  return Buffer.from(row.secret, 'base64url');
}

/**
 * The 32-byte HMAC key of email links.
 * @param db the root knex instance, never a transaction: a secret created inside a transaction that
 *   rolls back would be cached here while missing from the database.
 * @throws Error when given a transaction, or when the database cannot be read (the caller's 5xx).
 */
export function linkSecret(db: Knex): Promise<Buffer> {
  if ((db as Knex.Transaction).isTransaction) throw new Error('linkSecret needs the root database handle, not a transaction');
  let secret = cache.get(db);
  if (!secret) {
    secret = loadOrCreate(db);
    cache.set(db, secret);
    // A failed read (database down) is retried by the next caller instead of being cached.
    secret.catch(() => cache.delete(db));
  }
  return secret;
}
