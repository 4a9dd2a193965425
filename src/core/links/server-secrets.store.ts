/**
 * The secrets the service makes for itself (`server_secrets`, migration 003), kept in the database so that every
 * instance and every restart agrees: `email_links` signs email-link and dashboard-link tokens (docs/collecting.md,
 * "Email links"); `idempotency` seals the answers the idempotency store keeps (docs/writes-keys-limits.md,
 * "Idempotency"); `erasure` keys the hashes that name erased addresses (docs/data-rights.md, "Erasing a person").
 * Read, or when missing created on first use without a race: `INSERT … ON CONFLICT DO NOTHING` and then `SELECT`, so two
 * instances starting at once both end up with the one row that won. Cached in-process per knex
 * instance and name after the first read (a secret never changes).
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/** The names of the server's secrets. */
export type ServerSecretName = 'email_links' | 'idempotency' | 'erasure';

const cache = new WeakMap<Knex, Map<ServerSecretName, Promise<Buffer>>>();

async function loadOrCreate(db: Knex, name: ServerSecretName): Promise<Buffer> {
  // Read first: a read replica (docs/operations.md, "Read replicas") can read the secret but not insert it.
  const found = await db('server_secrets').first<{ secret: string } | undefined>('secret').where({ name });
  if (found) return Buffer.from(found.secret, 'base64url');
  await db('server_secrets')
    .insert({ name, secret: randomBytes(32).toString('base64url') })
    .onConflict('name')
    .ignore();
  const row = await db('server_secrets').first<{ secret: string } | undefined>('secret').where({ name });
  if (!row) throw new Error(`server_secrets: the secret "${name}" could not be created`);
  return Buffer.from(row.secret, 'base64url');
}

/**
 * A 32-byte server secret by name.
 * @param db the root knex instance, never a transaction: a secret created inside a transaction that
 *   rolls back would be cached here while missing from the database.
 * @throws Error when given a transaction, or when the database cannot be read (the caller's 5xx).
 */
export function serverSecret(db: Knex, name: ServerSecretName): Promise<Buffer> {
  if ((db as Knex.Transaction).isTransaction) throw new Error('serverSecret needs the root database handle, not a transaction');
  let byName = cache.get(db);
  if (!byName) {
    byName = new Map();
    cache.set(db, byName);
  }
  let secret = byName.get(name);
  if (!secret) {
    const loading = loadOrCreate(db, name);
    byName.set(name, loading);
    // A failed read (database down) is retried by the next caller instead of being cached.
    loading.catch(() => byName.delete(name));
    secret = loading;
  }
  return secret;
}

/** The 32-byte HMAC key of email links and dashboard links (serverSecret `email_links`). */
export function linkSecret(db: Knex): Promise<Buffer> {
  return serverSecret(db, 'email_links');
}
