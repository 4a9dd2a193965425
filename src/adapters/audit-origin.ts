/**
 * The origin of an audited change made through the API (docs/security.md, "The audit trail"): the key's id, the
 * request id and the client's address (Express's `req.ip`, which follows `TRUST_PROXY`).
 */
import type { Request } from 'express';
import type { AuditOrigin } from '../core/audit/audit.store';
import { callerOf } from './query-values';

/** @throws AppError invalid_api_key when the request has no key (audited writes all need one). */
export function auditOrigin(req: Request): AuditOrigin {
  return { actor: callerOf(req).id, requestId: req.requestId, clientAddress: req.ip ?? null };
}
