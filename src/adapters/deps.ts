/** What adapters need from the app: built once in buildApp and passed to router factories. */
import type { UrlGuard } from '../core/webhooks/webhooks.write';
import type { Db } from '../platform/db/connection';

export interface CoreDeps {
  db: Db;
  /** How webhook URLs are checked at creation and PATCH (CONTRACT section 13). */
  webhookUrls: UrlGuard;
}

