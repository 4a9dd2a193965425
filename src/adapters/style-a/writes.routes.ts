/**
 * Style A writes (API document "Style A endpoints"; CONTRACT sections 8 and 10): rows under
 * `/datatables` and API keys (webhook endpoints: webhooks.routes.ts). Parse, call the core, present; the OpenAPI
 * validator has already checked the body shapes.
 */
import { Router, type Request } from 'express';
import type { CoreDeps } from '../deps';
import { createApiKeyFor, revokeApiKey } from '../../core/api-keys/api-keys.write';
import { deleteRow, patchRow, upsertRows } from '../../core/datatables/rows.write';
import { errors } from '../../core/errors';
import type { Scope } from '../../core/scopes';
import { single } from '../envelope';
import { param, workspaceOf } from '../query-values';
import { presentApiKey, presentRowA } from './present';

type Body = Record<string, unknown>;
const bodyOf = (req: Request): Body => (req.body ?? {}) as Body;

/** Write routes mounted at `/api/v1/workspaces`. */
export function styleAWritesRouter({ db, keysChanged }: CoreDeps): Router {
  const r = Router();

  r.post('/:workspace_id/datatables/:datatable_id/rows', async (req, res) => {
    const data = bodyOf(req).data;
    const many = Array.isArray(data);
    const rows = await upsertRows(db, workspaceOf(req), param(req, 'datatable_id'), (many ? data : [data]) as Body[], {
      single: !many,
      maxItems: 100,
    });
    res.status(rows.every((row) => row.created) ? 201 : 200);
    res.json(single(req, many ? rows.map(presentRowA) : presentRowA(rows[0]!)));
  });
  r.patch('/:workspace_id/datatables/:datatable_id/rows/:row_id', async (req, res) => {
    const row = await patchRow(db, workspaceOf(req), param(req, 'datatable_id'), param(req, 'row_id'), bodyOf(req).data as Body);
    res.json(single(req, presentRowA(row)));
  });
  r.delete('/:workspace_id/datatables/:datatable_id/rows/:row_id', async (req, res) => {
    await deleteRow(db, workspaceOf(req), param(req, 'datatable_id'), param(req, 'row_id'));
    res.status(204).end();
  });

  r.post('/:workspace_id/api-keys', async (req, res) => {
    if (!req.auth) throw errors.invalidApiKey();
    const b = bodyOf(req);
    const key = await createApiKeyFor(db, req.auth, workspaceOf(req), {
      name: b.name as string,
      scopes: b.scopes as Scope[] | undefined,
      workspaceIds: b.workspace_ids as string[] | undefined,
      expiresAt: b.expires_at as string | null | undefined,
      style: b.style as 'A' | 'B' | undefined,
      rateLimitPerMinute: b.rate_limit_per_minute as number | undefined,
    });
    res.status(201).json(single(req, { ...presentApiKey({ ...key, lastUsedAt: null }), secret: key.secret }));
  });
  r.delete('/:workspace_id/api-keys/:key_id', async (req, res) => {
    if (!req.auth) throw errors.invalidApiKey();
    await revokeApiKey(db, req.auth, workspaceOf(req), param(req, 'key_id'));
    keysChanged?.();
    res.status(204).end();
  });
  return r;
}
