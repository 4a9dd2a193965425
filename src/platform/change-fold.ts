/**
 * The fold of change marks in `serve` (docs/api-rules.md, "Conditional requests"): every FOLD_EVERY_MS, the committed
 * marks move into their workspaces' totals (core/changes/change-marks.store.ts, foldChangeMarks), so a conditional GET
 * counts only the marks of the last second or so. One fold at a time per process; instances may fold side by side.
 * A failed fold is logged and tried again next time (a version read stays right, only slower, while marks pile up).
 */
import type { Logger } from './logger';
import { FOLD_EVERY_MS, foldChangeMarks } from '../core/changes/change-marks.store';
import type { Db } from '../db';

/** The running fold; `stop()` resolves once a fold under way has finished its statement in progress. */
export interface ChangeFold {
  stop(): Promise<void>;
}

/**
 * Starts folding on `db` (the primary) every `everyMs` (default FOLD_EVERY_MS). `stop()` ends a fold under way after
 * its statement in progress (a backlog of marks left while no `serve` ran can take many statements of 10,000): what
 * is left is folded by the next `serve`, and a version read stays right meanwhile.
 */
export function startChangeFold(db: Db, logger: Logger, everyMs = FOLD_EVERY_MS): ChangeFold {
  let running: Promise<void> | undefined;
  const stopping = new AbortController();
  const timer = setInterval(() => {
    running ??= foldChangeMarks(db, { signal: stopping.signal })
      .then(
        () => undefined,
        (err: unknown) => logger.warn({ err }, 'folding change marks failed; trying again'),
      )
      .finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
