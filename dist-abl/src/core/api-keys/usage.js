"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.addUsage = addUsage;
exports.listKeyUsage = listKeyUsage;
const errors_1 = require("../errors");
/**
 * Adds counts to `api_key_usage` with one additive upsert, rows in key order (no deadlocks between
 * instances flushing at once).
 */
async function addUsage(db, counts) {
    if (counts.length === 0)
        return;
    const rows = [...counts]
        .sort((a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : a.date < b.date ? -1 : a.date > b.date ? 1 : a.style < b.style ? -1 : 1))
        .map((c) => ({ api_key_id: c.keyId, day: c.date, style: c.style, requests: c.requests }));
    await db('api_key_usage')
        .insert(rows)
        .onConflict(['api_key_id', 'day', 'style'])
        .merge({ requests: db.raw('api_key_usage.requests + excluded.requests') });
}
/**
 * Requests of a key per UTC day and style over the last `days` days (today included), newest first,
 * Style A before B within a day; only days and styles with requests.
 * @param days 1–90, already validated.
 * @param today the current UTC date `YYYY-MM-DD`.
 * @throws AppError resource_not_found when the key does not exist or has no access to the workspace.
 */
async function listKeyUsage(db, workspaceId, keyId, days, today) {
    const access = await db('api_key_workspaces').where({ workspace_id: workspaceId, api_key_id: keyId }).first();
    if (!access)
        throw errors_1.errors.notFound('API key', keyId);
    const from = new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
    const rows = (await db('api_key_usage')
        .select(db.raw('day::text AS day'), 'style', 'requests')
        .where('api_key_id', keyId)
        .where('day', '>=', from)
        .where('day', '<=', today)
        .where('requests', '>', 0)
        .orderBy([
        { column: 'day', order: 'desc' },
        { column: 'style', order: 'asc' },
    ]));
    return rows.map((r) => ({ keyId, date: r.day, style: r.style, requests: Number(r.requests) }));
}
//# sourceMappingURL=usage.js.map