/**
 * A digest of everything stored for a workspace, to prove a rejected request wrote nothing: every
 * table with a `workspace_id` column (found in the catalog, so tables other branches add are covered)
 * plus the workspace's API keys (without `last_used_at`, which reading touches).
 */
import type { Db } from '../../src/platform/db/connection';

let tables: string[] | undefined;

export async function workspaceState(db: Db, ws: string): Promise<Record<string, string>> {
  tables ??= (
    (await db.raw(
      "SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'workspace_id' ORDER BY 1",
    )) as { rows: Array<{ table_name: string }> }
  ).rows.map((r) => r.table_name);
  const state: Record<string, string> = {};
  for (const table of tables) {
    const r = await db.raw(`SELECT count(*)::int AS n, coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS h FROM ?? t WHERE workspace_id = ?`, [table, ws]);
    state[table] = `${r.rows[0].n}:${r.rows[0].h}`;
  }
  const keys = await db.raw(
    `SELECT count(*)::int AS n, coalesce(md5(string_agg(concat_ws(',', k.id, k.name, k.scopes::text, k.revoked_at, k.expires_at), '|' ORDER BY k.id)), '') AS h
       FROM api_keys k WHERE k.id IN (SELECT api_key_id FROM api_key_workspaces WHERE workspace_id = ?)`,
    [ws],
  );
  state.api_keys = `${keys.rows[0].n}:${keys.rows[0].h}`;
  return state;
}
