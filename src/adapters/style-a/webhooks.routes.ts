/**
 * Style A webhook endpoint writes and the delivery log (API document "Webhook endpoint";
 * docs/webhooks.md, "Endpoints", "The delivery log"): create, PATCH, delete, rotate-secret, test, deliveries (list, one, retry).
 * Parse, call the core, present; the OpenAPI validator has already checked the shapes.
 */
import { Router } from 'express';
import type { CoreDeps } from '../deps';
import {
  webhookDeliveryRetried,
  webhookEndpointCreated,
  webhookEndpointDeleted,
  webhookEndpointUpdated,
  webhookSecretRotated,
  webhookTestSent,
} from '../../core/audit/audit-events';
import { recordAudit } from '../../core/audit/audit.store';
import {
  checkWebhookEndpoint,
  checkWebhookPatch,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getDelivery,
  listDeliveries,
  patchWebhookEndpoint,
  retryDelivery,
  rotateWebhookSecret,
  sendTestEvent,
} from '../../core/webhooks/webhooks.store';
import { withTransaction } from '../../db';
import { auditOrigin } from '../audit-origin';
import { keysetPage, single } from '../envelope';
import { bodyOf, param, str, workspaceOf } from '../query-values';
import { keysetParams } from './params';
import { presentDelivery, presentWebhookEndpoint } from './present';
import type { WebhookEndpointCreateRequest, WebhookEndpointPatchRequest, WebhookSecretRotateRequest } from '../../wire/types.gen';

/** Routes mounted at `/api/v1/workspaces`. */
export function webhooksRouter({ db, webhookUrls }: CoreDeps): Router {
  const r = Router();
  const base = '/:workspace_id/webhook-endpoints';

  r.post(base, async (req, res) => {
    const b = bodyOf<WebhookEndpointCreateRequest>(req);
    const ws = workspaceOf(req);
    const input = await checkWebhookEndpoint(
      {
        url: b.url,
        events: b.events,
        description: b.description,
        enabled: b.enabled,
        // The endpoint renders events in the creating key's style unless told otherwise.
        style: b.style ?? req.auth?.style ?? 'A',
      },
      webhookUrls,
    );
    const created = await withTransaction(db, async (trx) => {
      const endpoint = await createWebhookEndpoint(trx, ws, input);
      await recordAudit(trx, auditOrigin(req), webhookEndpointCreated(ws, endpoint));
      return endpoint;
    });
    res.status(201).json(single(req, { ...presentWebhookEndpoint(created), secret: created.secret }));
  });
  r.patch(`${base}/:endpoint_id`, async (req, res) => {
    const b = bodyOf<WebhookEndpointPatchRequest>(req);
    const patch = await checkWebhookPatch(
      {
        url: b.url,
        events: b.events,
        description: b.description,
        enabled: b.enabled,
        style: b.style,
      },
      webhookUrls,
    );
    const [ws, id] = [workspaceOf(req), param(req, 'endpoint_id')];
    const endpoint = await withTransaction(db, async (trx) => {
      const patched = await patchWebhookEndpoint(trx, ws, id, patch);
      await recordAudit(trx, auditOrigin(req), webhookEndpointUpdated(ws, id, patch));
      return patched;
    });
    res.json(single(req, presentWebhookEndpoint(endpoint)));
  });
  r.delete(`${base}/:endpoint_id`, async (req, res) => {
    const [ws, id] = [workspaceOf(req), param(req, 'endpoint_id')];
    await withTransaction(db, async (trx) => {
      await deleteWebhookEndpoint(trx, ws, id);
      await recordAudit(trx, auditOrigin(req), webhookEndpointDeleted(ws, id));
    });
    res.status(204).end();
  });
  r.post(`${base}/:endpoint_id/rotate-secret`, async (req, res) => {
    const [ws, id] = [workspaceOf(req), param(req, 'endpoint_id')];
    const immediate = bodyOf<WebhookSecretRotateRequest>(req).immediate === true;
    const rotated = await withTransaction(db, async (trx) => {
      const endpoint = await rotateWebhookSecret(trx, ws, id, { immediate });
      await recordAudit(trx, auditOrigin(req), webhookSecretRotated(ws, id, immediate));
      return endpoint;
    });
    res.json(single(req, { ...presentWebhookEndpoint(rotated), secret: rotated.secret }));
  });
  r.post(`${base}/:endpoint_id/test`, async (req, res) => {
    const [ws, id] = [workspaceOf(req), param(req, 'endpoint_id')];
    const delivery = await withTransaction(db, async (trx) => {
      const queued = await sendTestEvent(trx, ws, id);
      await recordAudit(trx, auditOrigin(req), webhookTestSent(ws, id, queued.id));
      return queued;
    });
    res.status(202).json(single(req, presentDelivery(delivery)));
  });

  r.get(`${base}/:endpoint_id/deliveries`, async (req, res) => {
    const p = keysetParams(req);
    const page = await listDeliveries(db, workspaceOf(req), param(req, 'endpoint_id'), { limit: p.limit, cursor: p.cursor, status: str(req, 'status') });
    res.json(keysetPage(req, page, presentDelivery));
  });
  r.get(`${base}/:endpoint_id/deliveries/:delivery_id`, async (req, res) => {
    const delivery = await getDelivery(db, workspaceOf(req), param(req, 'endpoint_id'), param(req, 'delivery_id'));
    res.json(single(req, presentDelivery(delivery)));
  });
  r.post(`${base}/:endpoint_id/deliveries/:delivery_id/retry`, async (req, res) => {
    const [ws, id, deliveryId] = [workspaceOf(req), param(req, 'endpoint_id'), param(req, 'delivery_id')];
    const delivery = await withTransaction(db, async (trx) => {
      const queued = await retryDelivery(trx, ws, id, deliveryId);
      await recordAudit(trx, auditOrigin(req), webhookDeliveryRetried(ws, id, deliveryId));
      return queued;
    });
    res.status(202).json(single(req, presentDelivery(delivery)));
  });
  return r;
}
