/**
 * The baseline for the throughput comparison: node:http + pg, no framework, no auth, no logging,
 * no validation. Answers GET /api/v1/workspaces/{ws}/responses with the same query shape as the
 * Style A first page (`… WHERE workspace_id=$1 ORDER BY created_at DESC, id DESC LIMIT 21`) and the
 * JSON of the rows. Same pool size as the app (10).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

const SQL = `SELECT id, form_id, score, version, language, created_at, answers, respondent_email, email_id, row_id
               FROM responses WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT 21`;
const PATH = /^\/api\/v1\/workspaces\/([^/?]+)\/responses(?:\?.*)?$/;

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

export async function startBareServer(databaseUrl: string, poolMax = 10): Promise<BareServer> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolMax });
  const server = http.createServer((req, res) => {
    const m = PATH.exec(req.url ?? '');
    if (req.method !== 'GET' || !m) {
      res.writeHead(404).end();
      return;
    }
    pool.query(SQL, [decodeURIComponent(m[1]!)]).then(
      (r) => {
        const body = JSON.stringify({ data: r.rows.slice(0, 20), has_more: r.rows.length > 20 });
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      },
      (err: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
      },
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
