/** What adapters need from the app: built once in buildApp and passed to router factories. */
import type { StyleBSchedule } from '../core/migration/report';
import type { OutsideRecords } from '../core/respondents/erasure';
import type { UrlGuard } from '../core/webhooks/webhooks.store';
import type { Db } from '../db';
import type { ExportSlots } from '../platform/export-slots';
import type { LiveStreams } from '../platform/live-streams';

export interface CoreDeps {
  /** The database this set of routers reads and writes: the primary, or a read replica in a replica's routers (GETs). */
  db: Db;
  /**
   * The primary even in a replica's routers (app.ts, mountApi): for a read that writes first, the audit list's seal
   * (docs/security.md, "The audit trail"). Absent: `db` is the primary.
   */
  primary?: Db;
  /** Base of every absolute link the service prints (config.publicUrl, README.md, "Configuration"). */
  publicUrl?: string;
  /** RATE_LIMIT_PER_MINUTE: the limit of a key whose own is null (the cap of keys it creates, "Key lineage"). */
  rateLimitPerMinute: number;
  /** How webhook URLs are checked at creation and PATCH (docs/webhooks.md, "Address rules"). */
  webhookUrls: UrlGuard;
  /**
   * Tells this instance's key cache that a key changed (after a revoke commits), so the very next
   * request here sees it; other instances learn it from the database's change notice.
   */
  keysChanged?: () => void;
  /** The export caps and stall timeout of this instance (docs/analytics.md, "Exports, slow clients and caps"). */
  exportSlots: ExportSlots;
  /** The live streams of this instance (docs/live.md, "Stream"). */
  live: LiveStreams;
  /** RESPONSE_DELETE_INLINE_MAX: the largest bulk delete run in the request (docs/api-rules.md, "Deleting responses"). */
  responseDeleteInlineMax?: number;
  /** EVENT_RETENTION_DAYS: how far back a webhook recovery may reach (docs/webhooks.md, "Recovering missed events"). */
  eventRetentionDays?: number;
  /** The Style B deprecation and sunset dates (STYLE_B_SUNSET, STYLE_B_DEPRECATED_AT) the migration report shows. */
  styleB?: StyleBSchedule;
  /** The idempotency records holding an address, for an erasure (platform/idempotency.ts, personIdempotencyRecords). */
  idempotencyRecords?: OutsideRecords;
}
