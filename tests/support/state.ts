/**
 * A digest of everything stored for a workspace, to prove a rejected request wrote nothing: every
 * table with a `workspace_id` column (found in the catalog, so tables other branches add are covered)
 * plus the workspace's API keys (without `last_used_at`, which reading touches). The audit seals of earlier writes
 * (src/db/follow-up.ts) run after their answers: they are waited for first, so a seal is never taken for a write.
 */
import type { Db } from '../../src/db/connection';
import { settleFollowUps } from '../../src/db/follow-up';

let query: string | undefined;

/** One round trip: `name → "count:md5"` for every workspace table and the workspace's keys. */
export async function workspaceState(db: Db, ws: string): Promise<Record<string, string>> {
  await settleFollowUps(db);
  if (!query) {
    const tables = (
      (await db.raw(
        "SELECT DISTINCT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'workspace_id' ORDER BY 1",
      )) as { rows: Array<{ table_name: string }> }
    ).rows.map((r) => r.table_name);
    const parts = tables.map(
      (table) =>
        `SELECT '${table}' AS name, count(*)::int AS n, coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS h FROM "${table}" t WHERE workspace_id = :ws`,
    );
    parts.push(`SELECT 'api_keys' AS name, count(*)::int AS n,
        coalesce(md5(string_agg(concat_ws(',', k.id, k.name, k.scopes::text, k.revoked_at, k.expires_at), '|' ORDER BY k.id)), '') AS h
        FROM api_keys k WHERE k.id IN (SELECT api_key_id FROM api_key_workspaces WHERE workspace_id = :ws)`);
    query = parts.join('\nUNION ALL\n');
  }
  const r = (await db.raw(query, { ws })) as { rows: Array<{ name: string; n: number; h: string }> };
  return Object.fromEntries(r.rows.map((row) => [row.name, `${row.n}:${row.h}`]));
}
