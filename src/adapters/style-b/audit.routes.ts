/**
 * The audit trail in Style B (docs/security.md, "The audit trail"): `GET {ws}/audit-events` with page paging, totals,
 * `filter` and camelCase records; the selector (adapters/shared-responses.ts) picks the style.
 */
import type { RequestHandler } from 'express';
import { listAuditOffset, type AuditEvent } from '../../core/audit/audit.store';
import type { CoreDeps } from '../deps';
import { offsetPage } from '../envelope';
import { createdRangeB, str, workspaceOf } from '../query-values';
import type { AuditEventB } from '../../wire/types.gen';
import { pageParams } from './params';

/** The Style B shape of an audit record. */
export function presentAuditEventB(e: AuditEvent): AuditEventB {
  return {
    id: e.id,
    seq: e.seq,
    createdAt: e.createdAt.toISOString(),
    actor: e.actor,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId,
    requestId: e.requestId,
    clientAddress: e.clientAddress,
    changes: e.changes,
    prevHash: e.prevHash,
    hash: e.hash,
  };
}

/** `GET {ws}/audit-events` in Style B. */
export const auditListB =
  ({ db, primary }: CoreDeps): RequestHandler =>
  async (req, res) => {
    // On the primary, also behind read replicas: the list seals the workspace's committed records first.
    const page = await listAuditOffset(primary ?? db, workspaceOf(req), {
      actor: str(req, 'actor'),
      action: str(req, 'action'),
      targetType: str(req, 'target_type'),
      targetId: str(req, 'target_id'),
      created: createdRangeB(req),
      filter: str(req, 'filter'),
      pagination: pageParams(req),
    });
    res.json(offsetPage(req, page.items.map(presentAuditEventB), page));
  };
