/** Helpers of the usage tests: waiting for a flush, and a key's id from its secret. */
import { createHash } from 'node:crypto';
import type { Db } from '../../../src/db/connection';

/** Reads until `ok` holds or `ms` have passed (every 50 ms); returns the last read. */
export async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  let v = await read();
  while (!ok(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    v = await read();
  }
  return v;
}

/** The public id (`key_…`) of the key whose secret is `secret`. */
export async function keyIdOf(db: Db, secret: string): Promise<string> {
  const row = (await db('api_keys').where('key_hash', createHash('sha256').update(secret).digest('hex')).first('id')) as { id: string } | undefined;
  if (!row) throw new Error('no such key');
  return row.id;
}
