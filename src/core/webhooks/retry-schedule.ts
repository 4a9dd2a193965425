/**
 * The webhook retry schedule's default (docs/webhooks.md, "Retries"), in one place for the delivery worker and
 * `serve --help` (WEBHOOK_RETRY_SCHEDULE overrides it).
 */

/** Seconds before attempts 2..8: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];
