/**
 * How many exports run at once on this instance (docs/analytics.md, "Exports, slow clients and caps"): at most
 * `perKey` for one owner (an API key, or a dashboard link) and `max` in all, API exports and dashboard downloads
 * together. An export holds a pooled database connection for as long as it streams, so these caps keep
 * connections free for the API whatever the exporting clients do.
 *
 * Counted in this process, not in Redis, on purpose: what they protect is this instance's pool, which an export
 * elsewhere does not touch; an in-process count is exact and cannot leak when an instance dies (a count in Redis
 * would need leases that expire). The price: with N instances one key may run N × `perKey` exports in all.
 */
import { errors } from '../core/errors';

/** Seconds a client refused by an export cap is told to wait (`Retry-After`). */
export const EXPORT_RETRY_AFTER_SECONDS = 10;

export interface ExportLimits {
  /** Exports one owner may run at once (EXPORTS_PER_KEY). */
  perKey: number;
  /** Exports this instance runs at once (EXPORTS_MAX). */
  max: number;
  /** An export whose client has read nothing for this long is aborted, ms (EXPORT_STALL_TIMEOUT_MS). */
  stallTimeoutMs: number;
}

export interface ExportSlots {
  readonly stallTimeoutMs: number;
  /**
   * Takes a slot for `owner` (`key:<id>`, `link:<id>`).
   * @returns its release; calling it again does nothing.
   * @throws AppError rate_limit_exceeded (429, `Retry-After`) when the owner or the instance is at its cap.
   */
  acquire(owner: string): () => void;
}

/** The slots of one app (built once in buildApp, shared by both styles' exports and the dashboard downloads). */
export function createExportSlots(limits: ExportLimits): ExportSlots {
  const byOwner = new Map<string, number>();
  let running = 0;
  return {
    stallTimeoutMs: limits.stallTimeoutMs,
    acquire(owner) {
      const mine = byOwner.get(owner) ?? 0;
      if (mine >= limits.perKey) throw errors.tooManyAtOnce('exports', `${limits.perKey} per key`, EXPORT_RETRY_AFTER_SECONDS);
      if (running >= limits.max) throw errors.tooManyAtOnce('exports', `${limits.max} on this server`, EXPORT_RETRY_AFTER_SECONDS);
      byOwner.set(owner, mine + 1);
      running += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        running -= 1;
        const left = (byOwner.get(owner) ?? 1) - 1;
        if (left <= 0) byOwner.delete(owner);
        else byOwner.set(owner, left);
      };
    },
  };
}
