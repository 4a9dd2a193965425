/** What adapters need from the app: built once in buildApp and passed to router factories. */
import type { UrlGuard } from '../core/webhooks/webhooks.write';
import type { Db } from '../db';

export interface CoreDeps {
  db: Db;
  /** Base of every absolute link the service prints (config.publicUrl, CONTRACT section 11). */
  publicUrl?: string;
  /** How webhook URLs are checked at creation and PATCH (CONTRACT section 13). */
  webhookUrls: UrlGuard;
  /**
   * Tells this instance's key cache that a key changed (after a revoke commits), so the very next
   * request here sees it; other instances learn it from the database's change notice.
   */
  keysChanged?: () => void;
}

