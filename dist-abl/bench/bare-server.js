"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.startBareServer = startBareServer;
/**
 * The baseline of `npm run bench`: node:http + pg, no framework, no validator, no logging, no rate
 * limit, but the API key checked in PostgreSQL on every request, as the service does. Pool of 10
 * connections (the app's default). It serves the two operations the throughput targets compare:
 *
 * - `GET /api/v1/workspaces/{ws}/responses[?form_id=F][&score_gte=N][&limit=L]` (limit 1..100,
 *   default 20): the Style A list's query shape, `… WHERE workspace_id = $1 [AND form_id = $2]
 *   [AND score >= $3] ORDER BY created_at DESC, id DESC LIMIT L + 1`, answered with the rows in the
 *   Style A response shape (snake_case, ISO times, answers `{question_id, title, type, value}`) and
 *   `meta {limit, has_more}`.
 * - `POST /api/v1/workspaces/{ws}/datatables/{id}/rows` with `{"data": {"id": …, …}}`: one
 *   `INSERT … ON CONFLICT (workspace_id, datatable_id, external_id) DO UPDATE` merging the columns
 *   into the stored row (`data || new`; `external_id` is the generated column `data->>'id'`),
 *   answered 201 `{data: row}` when created, 200 when updated.
 *
 * The key check is its own query, as an authentication middleware would run it: the SHA-256 of the
 * `X-API-Key` header (src/core/api-keys/secrets.ts) must name a key that is not revoked, not expired
 * and has the path's workspace; otherwise 401 `invalid_api_key`. Errors: 400 for a body that is not
 * `{"data": {"id": string|number, …}}`, 404 for another path or an unknown datatable, 500 with the
 * database error's message otherwise (a bench tool, not a service).
 */
const node_crypto_1 = require("node:crypto");
const node_http_1 = __importDefault(require("node:http"));
const pg_1 = __importDefault(require("pg"));
const secrets_1 = require("../src/core/api-keys/secrets");
const KEY_SQL = `SELECT 1 FROM api_keys k JOIN api_key_workspaces w ON w.api_key_id = k.id
                  WHERE k.key_hash = $1 AND w.workspace_id = $2 AND k.revoked_at IS NULL
                    AND (k.expires_at IS NULL OR k.expires_at > now())`;
const UPSERT_SQL = `INSERT INTO datatable_rows AS r (workspace_id, datatable_id, row_id, data)
                    VALUES ($1, $2, $3, $4::jsonb)
                    ON CONFLICT (workspace_id, datatable_id, external_id)
                    DO UPDATE SET data = r.data || EXCLUDED.data, updated_at = now()
                    RETURNING row_id, data, created_at, updated_at, (xmax = 0) AS inserted`;
const LIST_PATH = /^\/api\/v1\/workspaces\/([^/]+)\/responses$/;
const ROWS_PATH = /^\/api\/v1\/workspaces\/([^/]+)\/datatables\/([^/]+)\/rows$/;
const MAX_BODY = 1024 * 1024;
class HttpError extends Error {
    status;
    code;
    constructor(status, code, message) {
        super(message);
        this.status = status;
        this.code = code;
    }
}
/** Answers 200 with the Style A shape of up to `limit` rows (one more is read for `has_more`). */
async function list(pool, ws, q) {
    const limit = q.has('limit') ? Number(q.get('limit')) : 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw new HttpError(400, 'validation_error', '`limit` must be 1..100');
    const where = ['workspace_id = $1'];
    const values = [ws];
    const formId = q.get('form_id');
    if (formId !== null)
        where.push(`form_id = $${values.push(formId)}`);
    const scoreGte = q.get('score_gte');
    if (scoreGte !== null) {
        if (!Number.isFinite(Number(scoreGte)))
            throw new HttpError(400, 'validation_error', '`score_gte` must be a number');
        where.push(`score >= $${values.push(Number(scoreGte))}`);
    }
    const { rows } = await pool.query(`SELECT id, form_id, score, created_at, answers, respondent_email, email_id, row_id FROM responses
      WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.push(limit + 1)}`, values);
    const data = rows.slice(0, limit).map((r) => ({
        id: r.id,
        form_id: r.form_id,
        score: r.score,
        created_at: r.created_at.toISOString(),
        answers: r.answers.map((a) => ({ question_id: a.question_id, title: a.title, type: a.type, value: a.value })),
        respondent_email: r.respondent_email,
        email_id: r.email_id,
        row_id: r.row_id,
    }));
    return [200, { data, meta: { limit, has_more: rows.length > limit } }];
}
/** Upserts one row on `data.id`: 201 when created, 200 when merged into an existing row. */
async function upsert(pool, ws, datatableId, body) {
    let data;
    try {
        data = JSON.parse(body).data;
    }
    catch {
        throw new HttpError(400, 'validation_error', 'the body is not JSON');
    }
    const id = data?.id;
    if (typeof data !== 'object' || data === null || Array.isArray(data) || !(typeof id === 'string' || typeof id === 'number')) {
        throw new HttpError(400, 'validation_error', 'the body must be {"data": {"id": …, …}}');
    }
    const rowId = `row_${(0, node_crypto_1.randomBytes)(12).toString('base64url')}`;
    try {
        const { rows } = await pool.query(UPSERT_SQL, [
            ws,
            datatableId,
            rowId,
            JSON.stringify(data),
        ]);
        const r = rows[0];
        return [
            r.inserted ? 201 : 200,
            { data: { ...r.data, row_id: r.row_id, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString() } },
        ];
    }
    catch (e) {
        if (e.code === '23503')
            throw new HttpError(404, 'resource_not_found', `no datatable ${datatableId}`);
        throw e;
    }
}
function readBody(req) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        let size = 0;
        req.on('data', (c) => {
            size += c.length;
            if (size > MAX_BODY)
                reject(new HttpError(413, 'payload_too_large', 'the body is over 1 MiB'));
            else
                chunks.push(c);
        });
        req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        req.on('error', reject);
    });
}
async function handle(pool, req) {
    const url = new URL(req.url ?? '/', 'http://bare');
    const listMatch = req.method === 'GET' ? LIST_PATH.exec(url.pathname) : null;
    const rowsMatch = req.method === 'POST' ? ROWS_PATH.exec(url.pathname) : null;
    const ws = listMatch?.[1] ?? rowsMatch?.[1];
    if (ws === undefined)
        throw new HttpError(404, 'not_found', 'no such route');
    const workspaceId = decodeURIComponent(ws);
    const secret = req.headers['x-api-key'];
    const key = typeof secret === 'string' && secret.startsWith(secrets_1.API_KEY_PREFIX)
        ? await pool.query(KEY_SQL, [(0, secrets_1.hashApiKeySecret)(secret), workspaceId])
        : undefined;
    if (!key || key.rowCount === 0)
        throw new HttpError(401, 'invalid_api_key', 'missing or invalid API key');
    if (listMatch)
        return list(pool, workspaceId, url.searchParams);
    return upsert(pool, workspaceId, decodeURIComponent(rowsMatch[2]), await readBody(req));
}
/**
 * Starts the baseline on a free port of 127.0.0.1.
 * @param databaseUrl a migrated feedback-service database
 * @param poolMax PostgreSQL connections (default 10, as the app)
 */
async function startBareServer(databaseUrl, poolMax = 10) {
    const pool = new pg_1.default.Pool({ connectionString: databaseUrl, max: poolMax });
    const server = node_http_1.default.createServer((req, res) => {
        const send = (status, body) => {
            const text = JSON.stringify(body);
            res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
        };
        handle(pool, req).then(([status, body]) => send(status, body), (e) => e instanceof HttpError
            ? send(e.status, { error: { code: e.code, message: e.message, status: e.status } })
            : send(500, { error: { code: 'internal_error', message: String(e), status: 500 } }));
    });
    server.keepAliveTimeout = 65_000;
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
    });
    const { port } = server.address();
    return {
        url: `http://127.0.0.1:${port}`,
        close: async () => {
            server.closeAllConnections();
            await new Promise((resolve) => server.close(() => resolve()));
            await pool.end();
        },
    };
}
//# sourceMappingURL=bare-server.js.map