/**
 * Style A writes (API document "Style A endpoints"; docs/writes-keys-limits.md, "Row writes"): rows under
 * `/datatables` and API keys (webhook endpoints: webhooks.routes.ts). Parse, call the core, present; the OpenAPI
 * validator has already checked the body shapes.
 */
import { Router } from 'express';
import type { CoreDeps } from '../deps';
import { createApiKeyFor, revokeApiKey } from '../../core/api-keys/api-keys.store';
import { apiKeyCreated, apiKeyRevoked } from '../../core/audit/audit-events';
import { recordAudit } from '../../core/audit/audit.store';
import { prepareRowUpsert } from '../../core/datatables/datatables.store';
import { errors } from '../../core/errors';
import { withTransaction } from '../../db';
import { auditOrigin } from '../audit-origin';
import { single } from '../envelope';
import { bodyOf, param, workspaceOf } from '../query-values';
import { rowItemRoutes, writeRowsAudited } from '../row-item.routes';
import type { ApiKeyCreateRequest, RowsUpsertRequestA } from '../../wire/types.gen';
import { presentApiKey, presentRowA } from './present';

/** Write routes mounted at `/api/v1/workspaces`. */
export function styleAWritesRouter({ db, keysChanged, rateLimitPerMinute }: CoreDeps): Router {
  const r = Router();

  r.post('/:workspace_id/datatables/:datatable_id/rows', async (req, res) => {
    const { data } = bodyOf<RowsUpsertRequestA>(req);
    const many = Array.isArray(data);
    const upsert = await prepareRowUpsert(db, workspaceOf(req), param(req, 'datatable_id'), many ? data : [data], {
      single: !many,
      maxItems: 100,
    });
    const rows = await writeRowsAudited(db, req, upsert);
    res.status(rows.every((row) => row.created) ? 201 : 200);
    res.json(single(req, many ? rows.map(presentRowA) : presentRowA(rows[0]!)));
  });
  rowItemRoutes(r, db, { path: '/:workspace_id/datatables/:datatable_id/rows/:row_id', tableParam: 'datatable_id', present: presentRowA });

  r.post('/:workspace_id/api-keys', async (req, res) => {
    if (!req.auth) throw errors.invalidApiKey();
    const b = bodyOf<ApiKeyCreateRequest>(req);
    const creator = req.auth;
    const key = await withTransaction(db, async (trx) => {
      const created = await createApiKeyFor(
        trx,
        creator,
        workspaceOf(req),
        {
          name: b.name,
          scopes: b.scopes,
          workspaceIds: b.workspace_ids,
          expiresAt: b.expires_at,
          style: b.style,
          rateLimitPerMinute: b.rate_limit_per_minute,
        },
        rateLimitPerMinute,
      );
      await recordAudit(trx, auditOrigin(req), apiKeyCreated(created));
      return created;
    });
    res.status(201).json(single(req, { ...presentApiKey({ ...key, lastUsedAt: null }), secret: key.secret }));
  });
  r.delete('/:workspace_id/api-keys/:key_id', async (req, res) => {
    if (!req.auth) throw errors.invalidApiKey();
    const revoker = req.auth;
    await withTransaction(db, async (trx) => {
      const revoked = await revokeApiKey(trx, revoker, workspaceOf(req), param(req, 'key_id'));
      await recordAudit(trx, auditOrigin(req), apiKeyRevoked(revoked));
    });
    keysChanged?.();
    res.status(204).end();
  });
  return r;
}
