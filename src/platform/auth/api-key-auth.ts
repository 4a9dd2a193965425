/**
 * X-API-Key authentication and the per-key rate limit, in the contract's order of checks
 * (docs/api-rules.md, "Order of checks"): missing/unknown key 401 invalid_api_key (past the per-address budget 429)
 * → revoked/expired 401 api_key_expired → per-key rate limit 429 (a conditional GET's is settled by conditionalGet: a
 * 304 is not counted). Fills `auth` of the request context and, as soon as
 * the key is known, decides the style (decideStyle), so the 429 is answered in the key's style too
 * (docs/migrating-between-styles.md, "How the style is chosen"). Keys come from the in-process key cache (revocations
 * reach it through change notices, within 1 s in every case).
 */
import type { Request, RequestHandler, Response } from 'express';
import { isKeyInactive, touchLastUsed, type ApiKeyMeta } from '../../core/api-keys/api-keys.store';
import { API_KEY_PREFIX } from '../../core/api-keys/secrets';
import { errors } from '../../core/errors';
import type { Db } from '../../db/connection';
import { isApiKeyParam } from '../secret-params';
import type { Logger } from '../logger';
import { operationOf } from '../operations';
import { applyDecision, deferKeyBudget, type RateLimiter } from '../rate-limit';
import { decideStyle } from '../style-selection';
import type { ApiKeyCache } from './key-cache';

export interface AuthOptions {
  db: Db;
  /** Where keys are looked up: the in-process cache invalidated by change notices (key-cache.ts). */
  keys: ApiKeyCache;
  limiter: RateLimiter;
  logger: Logger;
  rateLimitPerMinute: number;
  authFailuresPerMinute: number;
}

/**
 * Authenticates `secret` for a request: the key it names, or (missing, unknown: 401 invalid_api_key; revoked, expired:
 * 401 api_key_expired) a failure counted against the client address's budget (past it, 429). Fills `auth` of the
 * request context and decides the style; the key's own budget is the caller's to count.
 */
export type KeyAuthenticator = (req: Request, res: Response, secret: string | undefined) => Promise<ApiKeyMeta>;

/** A KeyAuthenticator on `opts` (apiKeyAuth's, and the MCP endpoint's, which also reads `Authorization: Bearer`). */
export function keyAuthenticator(opts: AuthOptions): KeyAuthenticator {
  const lastTouched = new Map<string, number>();
  return async (req, res, secret) => {
    const key = secret && secret.startsWith(API_KEY_PREFIX) ? await opts.keys.find(secret) : undefined;
    if (!key || isKeyInactive(key)) {
      const d = await opts.limiter.consume('address', req.ip ?? 'unknown', opts.authFailuresPerMinute);
      if (key) {
        applyDecision(res, { ...d, retryAfter: undefined });
        throw errors.apiKeyExpired();
      }
      applyDecision(res, d);
      throw errors.invalidApiKey();
    }
    req.context.auth = key;
    decideStyle(req);
    const now = Date.now();
    if ((lastTouched.get(key.id) ?? 0) < now - 60_000) {
      lastTouched.set(key.id, now);
      touchLastUsed(opts.db, key.id).catch((err: unknown) => opts.logger.warn({ err }, 'could not record last_used_at'));
    }
    return key;
  };
}

export function apiKeyAuth(opts: AuthOptions): RequestHandler {
  const authenticate = keyAuthenticator(opts);
  return async (req, res, next) => {
    const key = await authenticate(req, res, req.get('X-API-Key'));
    const points = key.rateLimitPerMinute ?? opts.rateLimitPerMinute;
    // A conditional GET may end as a 304, which is not counted: conditionalGet settles the budget once it knows.
    if (req.get('If-None-Match') !== undefined && req.context.match && operationOf(req.context.match, req.method)?.conditional) {
      deferKeyBudget(req, res, { limiter: opts.limiter, keyId: key.id, points });
    } else applyDecision(res, await opts.limiter.consume('key', key.id, points));
    next();
  };
}

/**
 * Refuses an API key in the query string on every `/api/` path, before any other check (docs/api-rules.md,
 * "Order of checks"): a URL ends up in proxy logs, browser histories and `Referer` headers. A parameter that
 * isApiKeyParam names (`api_key`, `apiKey`, `x-api-key`, `X-API-Key`, …, any case) is a 400 validation_error
 * naming it and telling to send the `X-API-Key` header instead, whether or not the header is also sent.
 */
export function refuseKeyInQuery(): RequestHandler {
  return (req, _res, next) => {
    if (!/^\/api\//i.test(req.path)) return next();
    const names = Object.keys(req.query as Record<string, unknown>).filter(isApiKeyParam);
    if (names.length === 0) return next();
    throw errors.validation(
      names.map((name) => ({
        location: 'query' as const,
        field: name,
        message: `\`${name}\`: an API key is never accepted in the query string; send it in the \`X-API-Key\` header (and revoke a key that was sent in a URL).`,
      })),
    );
  };
}
