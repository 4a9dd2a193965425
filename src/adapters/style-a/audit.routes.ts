/**
 * The audit trail in Style A (docs/security.md, "The audit trail"): `GET {ws}/audit-events` with cursor paging and
 * snake_case records; the selector (adapters/shared-responses.ts) picks the style.
 */
import type { RequestHandler } from 'express';
import { listAuditKeyset, type AuditEvent } from '../../core/audit/audit.store';
import type { CoreDeps } from '../deps';
import { keysetPage } from '../envelope';
import { createdRangeA, str, workspaceOf } from '../query-values';
import type { AuditEventA } from '../../wire/types.gen';
import { keysetParams } from './params';

/** The Style A shape of an audit record. */
export function presentAuditEventA(e: AuditEvent): AuditEventA {
  return {
    id: e.id,
    seq: e.seq,
    created_at: e.createdAt.toISOString(),
    actor: e.actor,
    action: e.action,
    target_type: e.targetType,
    target_id: e.targetId,
    request_id: e.requestId,
    client_address: e.clientAddress,
    changes: e.changes,
    prev_hash: e.prevHash,
    hash: e.hash,
  };
}

/** `GET {ws}/audit-events` in Style A. */
export const auditListA =
  ({ db, primary }: CoreDeps): RequestHandler =>
  async (req, res) => {
    // On the primary, also behind read replicas: the list seals the workspace's committed records first.
    const page = await listAuditKeyset(primary ?? db, workspaceOf(req), {
      actor: str(req, 'actor'),
      action: str(req, 'action'),
      targetType: str(req, 'target_type'),
      targetId: str(req, 'target_id'),
      created: createdRangeA(req),
      pagination: keysetParams(req),
    });
    res.json(keysetPage(req, page, presentAuditEventA));
  };
