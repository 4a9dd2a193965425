/**
 * Child process of embedded.test.ts (PGlite does not load inside jest's VM): on a fresh embedded
 * database, builds the app and the delivery worker on ONE knex instance, as `serve` does, creates an
 * endpoint (RECEIVER_URL) and a row through the API, waits until the delivery log shows success, and
 * prints `{"secret","row","delivery"}` as one JSON line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nanoid } from 'nanoid';
import supertest from 'supertest';
import { buildApp } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { importFixture } from '../../../src/core/import/importer';
import { createDeliveryWorker } from '../../../src/delivery/worker';
import { createDb, isEmbedded, migrateLatest } from '../../../src/db/connection';
import { createLogger } from '../../../src/platform/logger';

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-webhooks-pglite-'));
  const db = createDb({ databaseUrl: undefined, dataDir: dir });
  try {
    if (!isEmbedded(db)) throw new Error('expected the embedded database');
    await migrateLatest(db);
    const key = `fa_${nanoid(40)}`;
    await importFixture(db, {
      workspaces: [{ id: 'ws_emb', name: 'Embedded', link: 'emb' }],
      api_keys: [{ name: 'k', secret: key, workspace_ids: ['ws_emb'] }],
      datatables: [{ id: 'tbl_emb', workspace_id: 'ws_emb', name: 'T', fields: [{ name: 'plan', type: 'string' }] }],
    });
    const config = loadConfig({ dataDir: dir, webhookAllowHttp: true, webhookAllowPrivate: true, webhookRetrySchedule: [0.2], validateResponses: true }, {});
    const logger = createLogger('silent');
    const app = buildApp(config, { db, logger });
    const worker = createDeliveryWorker({ db, config, logger, pollingIntervalSeconds: 0.5 });
    await worker.start();
    const base = '/api/v1/workspaces/ws_emb';
    const ep = await supertest(app)
      .post(`${base}/webhook-endpoints`)
      .set('X-API-Key', key)
      .send({ url: `${process.env.RECEIVER_URL}/emb`, events: ['row.created'] });
    const row = await supertest(app)
      .post(`${base}/datatables/tbl_emb/rows`)
      .set('X-API-Key', key)
      .send({ data: { plan: 'free' } });
    let delivery: Record<string, unknown> | undefined;
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      const list = await supertest(app).get(`${base}/webhook-endpoints/${ep.body.data.id}/deliveries`).set('X-API-Key', key);
      delivery = list.body.data[0];
      if (delivery?.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await worker.stop();
    process.stdout.write(`${JSON.stringify({ secret: ep.body.data.secret, row: row.body.data, delivery })}\n`);
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
