/**
 * Counts every authenticated request per key, answer style (as `X-API-Style` says), UTC day and operation (the
 * openapi/ `operationId` the request matched, or `unmatched`), all read from the request context, errors included (docs/analytics.md,
 * "Migration insight", "Usage per operation"). The hot path only bumps an in-process map; every
 * `intervalMs` (default 2 s) the map is flushed to PostgreSQL in one transaction: the per-operation
 * counts (a Style B request that answered below 400 also records what stands in the way of its mechanical
 * Style A translation, core/migration/attention.ts) and their per-style totals, each with one additive upsert (core/api-keys/usage.store.ts), and once
 * more on shutdown (`stop`). A request therefore shows in the usage list within ~2 s; counts of several
 * instances add up. A failed flush keeps its counts for the next one.
 */
import type { Request, Response } from 'express';
import { addAllUsage, UNMATCHED_OPERATION, type OperationUsageCount } from '../core/api-keys/usage.store';
import { styleBAttention } from '../core/migration/attention';
import { withTransaction } from '../db';
import type { Db } from '../db/connection';
import type { AnswerDone } from './answer-hooks';
import type { Logger } from './logger';
import { operationOf } from './operations';
import { answerStyle } from './style-selection';

export interface UsageCounter {
  /**
   * Counts a request once its answer is done (so its final style counts), on 'finish', or on 'close' alone when the
   * client went away first: the app adds it with onAnswerDone (platform/answer-hooks.ts).
   */
  readonly answerDone: AnswerDone;
  /** Writes the pending counts now. */
  flush(): Promise<void>;
  /** Stops the timer and writes the pending counts. */
  stop(): Promise<void>;
}

export interface UsageCounterOptions {
  db: Db;
  logger: Logger;
  /** Flush period in ms (default 2000; tests pass less). */
  intervalMs?: number;
  /** Told of every counted request (the metrics' `api_requests_by_style_total`). */
  onCount?(style: 'A' | 'B', operation: string): void;
}

/**
 * The operation a finished request matched: the scope check's, else (a 429, a 403 before the scope check) the method's
 * on the path the context matched; `unmatched` for a path or method the document does not have.
 */
export function requestOperation(req: Request): string {
  const ctx = req.context;
  const op = ctx.operation ?? (ctx.match && operationOf(ctx.match, req.method));
  return op?.operationId ?? UNMATCHED_OPERATION;
}

/** The migration gap of a Style B request that was answered (core/migration/attention.ts). */
function attentionOf(req: Request): string {
  // The request's own header, as the client sent it (the translation keeps what was asked).
  const style = req.get('X-API-Style');
  return styleBAttention({
    method: req.method,
    path: req.originalUrl.split('?')[0] ?? '',
    query: req.query as Record<string, string | string[]>,
    headers: style ? { 'X-API-Style': style } : {},
    body: req.body,
  });
}

const COUNTED = Symbol('usageCounted');

const DAY_MS = 86_400_000;

/** A pending count: OperationUsageCount with its instants in ms (a Date is made per count at the flush, not per request). */
type PendingCount = Omit<OperationUsageCount, 'firstSeen' | 'lastSeen'> & { firstSeen: number; lastSeen: number };

export function createUsageCounter(opts: UsageCounterOptions): UsageCounter {
  let pending = new Map<string, PendingCount>();
  let flushing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  // The UTC day of the last count, `YYYY-MM-DD`, and its bounds in ms: formatted once a day, not per request.
  let day = { date: '', from: 0, to: 0 };

  const record = (keyId: string, style: 'A' | 'B', operation: string, attention: string) => {
    const now = Date.now();
    if (now < day.from || now >= day.to) {
      const from = now - (now % DAY_MS);
      day = { date: new Date(from).toISOString().slice(0, 10), from, to: from + DAY_MS };
    }
    const date = day.date;
    const k = `${keyId}\n${date}\n${style}\n${operation}\n${attention}`;
    const c = pending.get(k);
    if (c) {
      c.requests += 1;
      c.lastSeen = now;
    } else pending.set(k, { keyId, date, style, operation, attention, requests: 1, firstSeen: now, lastSeen: now });
  };

  const keepForNextFlush = (batch: Map<string, PendingCount>) => {
    for (const [k, c] of batch) {
      const now = pending.get(k);
      if (!now) pending.set(k, c);
      else {
        now.requests += c.requests;
        if (c.firstSeen < now.firstSeen) now.firstSeen = c.firstSeen;
        if (c.lastSeen > now.lastSeen) now.lastSeen = c.lastSeen;
      }
    }
  };

  const flushOnce = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      const counts = [...batch.values()].map((c): OperationUsageCount => ({ ...c, firstSeen: new Date(c.firstSeen), lastSeen: new Date(c.lastSeen) }));
      await withTransaction(opts.db, (trx) => addAllUsage(trx, counts));
    } catch (err) {
      opts.logger.warn({ err }, 'could not write API key usage; kept for the next flush');
      keepForNextFlush(batch);
    }
  };
  const flush = () => (flushing = flushing.then(flushOnce));
  const ensureTimer = () => {
    if (timer) return;
    timer = setInterval(() => void flush(), opts.intervalMs ?? 2000);
    timer.unref();
  };

  // 'finish' when the answer is sent; 'close' alone when the client went away first (and after 'finish'): counted once.
  const count = (req: Request, res: Response & { [COUNTED]?: true }) => {
    const auth = req.context.auth;
    if (res[COUNTED] || !auth) return;
    res[COUNTED] = true;
    ensureTimer();
    const style = answerStyle(req);
    const operation = requestOperation(req);
    record(auth.id, style, operation, style === 'B' && res.statusCode < 400 ? attentionOf(req) : '');
    opts.onCount?.(style, operation);
  };

  return {
    answerDone: { finished: count, closed: count },
    flush,
    stop: async () => {
      if (timer) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
