/**
 * Counts every authenticated request per key, answer style (`X-API-Style`) and UTC day, errors
 * included (CONTRACT section 15). The hot path only bumps an in-process map; every `intervalMs`
 * (default 2 s) the map is flushed to PostgreSQL with one additive upsert (core/api-keys/usage.ts),
 * and once more on shutdown (`stop`). A request therefore shows in the usage list within ~2 s; counts
 * of several instances add up. A failed flush keeps its counts for the next one.
 */
import type { RequestHandler } from 'express';
import { addUsage, type UsageCount } from '../core/api-keys/usage';
import type { Db } from './db/connection';
import type { Logger } from './logger';

export interface UsageCounter {
  /** Registers the count of this request, taken when its answer is done (so its final style counts). */
  middleware(): RequestHandler;
  /** Writes the pending counts now. */
  flush(): Promise<void>;
  /** Stops the timer and writes the pending counts. */
  stop(): Promise<void>;
}

export function createUsageCounter(opts: { db: Db; logger: Logger; intervalMs?: number }): UsageCounter {
  let pending = new Map<string, UsageCount>();
  let flushing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const record = (keyId: string, style: 'A' | 'B') => {
    const date = new Date().toISOString().slice(0, 10);
    const k = `${keyId}\n${date}\n${style}`;
    const c = pending.get(k);
    if (c) c.requests += 1;
    else pending.set(k, { keyId, date, style, requests: 1 });
  };

  const flushOnce = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await addUsage(opts.db, [...batch.values()]);
    } catch (err) {
      opts.logger.warn({ err }, 'could not write API key usage; kept for the next flush');
      for (const [k, c] of batch) {
        const now = pending.get(k);
        if (now) now.requests += c.requests;
        else pending.set(k, c);
      }
    }
  };
  const flush = () => (flushing = flushing.then(flushOnce));
  const ensureTimer = () => {
    if (timer) return;
    timer = setInterval(() => void flush(), opts.intervalMs ?? 2000);
    timer.unref();
  };

  return {
    middleware: () => (req, res, next) => {
      ensureTimer();
      // 'finish' when the answer is sent; 'close' alone when the client went away first. Counted once.
      let counted = false;
      const count = () => {
        if (counted || !req.auth) return;
        counted = true;
        const style = String(res.getHeader('X-API-Style') ?? req.style).toUpperCase() === 'B' ? 'B' : 'A';
        record(req.auth.id, style);
      };
      res.once('finish', count);
      res.once('close', count);
      next();
    },
    flush,
    stop: async () => {
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
