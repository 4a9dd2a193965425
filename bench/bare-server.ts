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
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { API_KEY_PREFIX, hashApiKeySecret } from '../src/core/api-keys/secrets';

export interface BareServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  close(): Promise<void>;
}

/** The key check, shared with the stack floor (bench/floor-server.ts): a row when the key hash ($1) may use workspace $2. */
export const KEY_SQL = `SELECT 1 FROM api_keys k JOIN api_key_workspaces w ON w.api_key_id = k.id
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
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface ResponseRow {
  id: string;
  form_id: string;
  score: number;
  created_at: Date;
  answers: Array<{ question_id: string; title: string; type: string; value: unknown }>;
  respondent_email: string | null;
  email_id: string | null;
  row_id: string | null;
}

/** Answers 200 with the Style A shape of up to `limit` rows (one more is read for `has_more`). */
async function list(pool: pg.Pool, ws: string, q: URLSearchParams): Promise<[number, unknown]> {
  const limit = q.has('limit') ? Number(q.get('limit')) : 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new HttpError(400, 'validation_error', '`limit` must be 1..100');
  const where = ['workspace_id = $1'];
  const values: unknown[] = [ws];
  const formId = q.get('form_id');
  if (formId !== null) where.push(`form_id = $${values.push(formId)}`);
  const scoreGte = q.get('score_gte');
  if (scoreGte !== null) {
    if (!Number.isFinite(Number(scoreGte))) throw new HttpError(400, 'validation_error', '`score_gte` must be a number');
    where.push(`score >= $${values.push(Number(scoreGte))}`);
  }
  const { rows } = await pool.query<ResponseRow>(
    `SELECT id, form_id, score, created_at, answers, respondent_email, email_id, row_id FROM responses
      WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.push(limit + 1)}`,
    values,
  );
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
async function upsert(pool: pg.Pool, ws: string, datatableId: string, body: string): Promise<[number, unknown]> {
  let data: unknown;
  try {
    data = (JSON.parse(body) as { data?: unknown }).data;
  } catch {
    throw new HttpError(400, 'validation_error', 'the body is not JSON');
  }
  const id = (data as { id?: unknown } | null)?.id;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !(typeof id === 'string' || typeof id === 'number')) {
    throw new HttpError(400, 'validation_error', 'the body must be {"data": {"id": …, …}}');
  }
  const rowId = `row_${randomBytes(12).toString('base64url')}`;
  try {
    const { rows } = await pool.query<{ row_id: string; data: object; created_at: Date; updated_at: Date; inserted: boolean }>(UPSERT_SQL, [
      ws,
      datatableId,
      rowId,
      JSON.stringify(data),
    ]);
    const r = rows[0]!;
    return [r.inserted ? 201 : 200, { data: { ...r.data, row_id: r.row_id, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString() } }];
  } catch (e) {
    if ((e as { code?: string }).code === '23503') throw new HttpError(404, 'resource_not_found', `no datatable ${datatableId}`);
    throw e;
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) reject(new HttpError(413, 'payload_too_large', 'the body is over 1 MiB'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function handle(pool: pg.Pool, req: http.IncomingMessage): Promise<[number, unknown]> {
  const url = new URL(req.url ?? '/', 'http://bare');
  const listMatch = req.method === 'GET' ? LIST_PATH.exec(url.pathname) : null;
  const rowsMatch = req.method === 'POST' ? ROWS_PATH.exec(url.pathname) : null;
  const ws = listMatch?.[1] ?? rowsMatch?.[1];
  if (ws === undefined) throw new HttpError(404, 'not_found', 'no such route');
  const workspaceId = decodeURIComponent(ws);
  const secret = req.headers['x-api-key'];
  const key = typeof secret === 'string' && secret.startsWith(API_KEY_PREFIX) ? await pool.query(KEY_SQL, [hashApiKeySecret(secret), workspaceId]) : undefined;
  if (!key || key.rowCount === 0) throw new HttpError(401, 'invalid_api_key', 'missing or invalid API key');
  if (listMatch) return list(pool, workspaceId, url.searchParams);
  return upsert(pool, workspaceId, decodeURIComponent(rowsMatch![2]!), await readBody(req));
}

/**
 * Starts the baseline on a free port of 127.0.0.1.
 * @param databaseUrl a migrated feedback-service database
 * @param poolMax PostgreSQL connections (default 10, as the app)
 */
export async function startBareServer(databaseUrl: string, poolMax = 10): Promise<BareServer> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolMax });
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
    };
    handle(pool, req).then(
      ([status, body]) => send(status, body),
      (e: unknown) =>
        e instanceof HttpError
          ? send(e.status, { error: { code: e.code, message: e.message, status: e.status } })
          : send(500, { error: { code: 'internal_error', message: String(e), status: 500 } }),
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}
