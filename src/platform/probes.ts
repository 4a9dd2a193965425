/**
 * Probes for load balancers and orchestrators (docs/operations.md, "Probes"), mounted before authentication so
 * they need no key and count against no rate limit or missing-key budget:
 * - `GET /healthz`: 200 `{"status":"ok"}` while the process runs (liveness);
 * - `GET /readyz`: 200 `{"status":"ok","checks":{"database":"ok","redis":"ok"|"absent"}}` when the database
 *   (and Redis, when configured) answer within 1 s, else 503 `{"status":"unavailable","checks":{...}}`
 *   with `"down"` for each check that failed (readiness). With read replicas, `checks.replicas` lists each
 *   one (`name`, `state` ok/lagging/down, `lag_seconds`); a replica that is down or lagging does not make the
 *   service unready, since reads fall back to the primary (docs/operations.md, "Read replicas").
 */
import type { RequestHandler } from 'express';
import type { RedisClient } from './redis';
import { ping, type Db } from '../db';
import type { ReadReplicas } from '../db/replicas';

/** Budget of each readiness check, in milliseconds. */
export const READY_CHECK_TIMEOUT_MS = 1_000;

type CheckResult = 'ok' | 'down';

/** Resolves 'ok' when `check` resolves within the budget, 'down' when it rejects or is late. */
async function within(check: () => Promise<unknown>, ms: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => resolve('down'), ms);
  });
  try {
    return await Promise.race([
      check().then(
        (): CheckResult => 'ok',
        (): CheckResult => 'down',
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthz(): RequestHandler {
  return (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok' });
  };
}

export function readyz(deps: { db: Db; redis?: RedisClient | undefined; replicas?: ReadReplicas | undefined }): RequestHandler {
  return async (_req, res) => {
    const redis = deps.redis;
    const [database, redisCheck] = await Promise.all([
      within(() => ping(deps.db), READY_CHECK_TIMEOUT_MS),
      // The service's client (no offline queue) fails at once while disconnected instead of waiting.
      redis ? within(() => redis.ping(), READY_CHECK_TIMEOUT_MS) : Promise.resolve<'absent'>('absent'),
    ]);
    const ok = database === 'ok' && redisCheck !== 'down';
    res.setHeader('Cache-Control', 'no-store');
    const replicas = deps.replicas?.status().map((r) => ({ name: r.name, state: r.state, lag_seconds: r.lagSeconds }));
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', checks: { database, redis: redisCheck, ...(replicas ? { replicas } : {}) } });
  };
}
