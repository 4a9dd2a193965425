/**
 * Idempotency keys (docs/writes-keys-limits.md, "Idempotency"). On POST, PATCH and DELETE with an
 * `Idempotency-Key` header (1..255 printable characters), the answer is recorded for 24 h, scoped to
 * the API key: the same key with the same method, path and body (canonical JSON) replays the stored
 * status, headers and exact body bytes with `Idempotent-Replayed: true`; another method, path or
 * body is 409 idempotency_replay; the same key while the first request still runs is 409 conflict.
 * 5xx answers are not stored, so a retry runs again. Records live in Redis (shared by every
 * instance) or, without Redis, in an in-process map with the same semantics. If Redis fails, the
 * request runs without idempotency (logged) rather than failing.
 * The stored body is sealed (AES-256-GCM with a server key kept in the database, the record's key as associated
 * data): an answer that shows a secret once (a new API key, a webhook signing secret) is never readable from
 * Redis alone, and a replay still answers it byte for byte.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { beforeEnd } from './answer-hooks';
import type { Redis } from 'ioredis';
import type { RedisClient } from './redis';
import { canonicalJson } from '../core/canonical-json';
import { errors } from '../core/errors';
import type { Logger } from './logger';
import { redisStarted } from './redis';

const TTL_MS = 24 * 60 * 60 * 1000;
/** A request still running holds its key this long at most: a crashed instance frees it, not after 24 h. */
const IN_FLIGHT_TTL_MS = 5 * 60 * 1000;
const METHODS = new Set(['POST', 'PATCH', 'DELETE']);
const PRINTABLE = /^[\x20-\x7e]{1,255}$/;
/** Response headers replayed with the body (rate-limit, request id and style headers are the new request's). */
const STORED_HEADERS = ['content-type', 'location'];

interface InFlightRecord {
  state: 'in_flight';
  fingerprint: string;
}

interface DoneRecord {
  state: 'done';
  fingerprint: string;
  status: number;
  headers: Record<string, string>;
  /** The exact body bytes sealed (sealBody), base64: IV (12 bytes), tag (16), ciphertext. */
  sealed: string;
}

type IdempotencyRecord = InFlightRecord | DoneRecord;

/** Where records live; each operation is atomic on its own. */
export interface IdempotencyStore {
  /** Stores `value` only when `key` is absent; true when it was stored. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Every key starting with `prefix` (an erasure's scan; absent: the store cannot list, and erases nothing). */
  keys?(prefix: string): AsyncIterable<string>;
}

/**
 * Redis store: `SET key value NX PX ttl` takes the lock atomically on every instance. A request's first
 * call (setIfAbsent) waits for a new client's first connection (redisStarted), so that a request sent
 * right after start is not run without idempotency.
 */
export function redisIdempotencyStore(redis: RedisClient): IdempotencyStore {
  return {
    async setIfAbsent(key, value, ttlMs) {
      await redisStarted(redis);
      return (await redis.set(key, value, 'PX', ttlMs, 'NX')) === 'OK';
    },
    get: (key) => redis.get(key),
    async set(key, value, ttlMs) {
      await redis.set(key, value, 'PX', ttlMs);
    },
    async delete(key) {
      await redis.del(key);
    },
    async *keys(prefix) {
      await redisStarted(redis);
      // SCAN, not KEYS: never blocks Redis; a key may come twice (SCAN's contract), which the caller tolerates.
      // A cluster's keys are spread over its masters: each is scanned.
      const nodes = 'nodes' in redis && typeof redis.nodes === 'function' ? redis.nodes('master') : [redis as Redis];
      for (const node of nodes) {
        for await (const batch of node.scanStream({ match: `${prefix}*`, count: 500 }) as AsyncIterable<string[]>) yield* batch;
      }
    },
  };
}

/** In-process store with TTL (one instance only): the check and the set run in one tick. */
export function memoryIdempotencyStore(now: () => number = Date.now): IdempotencyStore {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const live = (key: string) => {
    const e = entries.get(key);
    if (e && e.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return e;
  };
  let writes = 0;
  const sweep = () => {
    if (++writes % 1000 !== 0) return;
    for (const key of [...entries.keys()]) live(key);
  };
  return {
    async setIfAbsent(key, value, ttlMs) {
      if (live(key)) return false;
      entries.set(key, { value, expiresAt: now() + ttlMs });
      sweep();
      return true;
    },
    async get(key) {
      return live(key)?.value ?? null;
    },
    async set(key, value, ttlMs) {
      entries.set(key, { value, expiresAt: now() + ttlMs });
      sweep();
    },
    async delete(key) {
      entries.delete(key);
    },
    async *keys(prefix) {
      for (const key of [...entries.keys()]) if (key.startsWith(prefix) && live(key)) yield key;
    },
  };
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** AES-256-GCM of `body` under `key`, bound to the record's key: base64 of IV, tag and ciphertext. */
export function sealBody(key: Buffer, recordKey: string, body: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(recordKey, 'utf8'));
  const data = Buffer.concat([cipher.update(body), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

/**
 * The body sealBody sealed for this record key.
 * @throws Error when the seal does not open (another key, another record, changed bytes).
 */
export function openBody(key: Buffer, recordKey: string, sealed: string): Buffer {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(recordKey, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
}

export interface IdempotencyOptions {
  /** Shared Redis; undefined → an in-process store. */
  redis?: RedisClient | undefined;
  logger: Logger;
  /** The 32-byte key that seals stored bodies (the server secret `idempotency`, the same on every instance). */
  sealKey: () => Promise<Buffer>;
  /** Key prefix in Redis (default `fs`). */
  prefix?: string;
  /** Overrides the store built from `redis` (tests). */
  store?: IdempotencyStore;
  /**
   * Whose keys these are: records of one scope never meet another's. Default: the API key's id
   * (docs/writes-keys-limits.md, "Idempotency"); the public submission path scopes by client address and form (docs/collecting.md, "Public JSON").
   */
  scope?: (req: Request) => string;
}

/**
 * The idempotency middleware; runs after the auth, access and validation steps (so `req.auth` is
 * set and invalid requests never take a lock).
 * @throws AppError validation_error naming the `Idempotency-Key` header when it is empty, longer
 * than 255 characters or not printable ASCII; idempotency_replay (409) for another method, path or
 * body; conflict (409, details "in progress") while the first request runs.
 */
export function idempotency(opts: IdempotencyOptions): RequestHandler {
  const store = opts.store ?? (opts.redis ? redisIdempotencyStore(opts.redis) : memoryIdempotencyStore());
  const prefix = `${opts.prefix ?? 'fs'}:idem`;
  const handle = async (req: Request, res: Response, next: NextFunction, header: string) => {
    if (!PRINTABLE.test(header)) {
      throw errors.invalid('header', 'Idempotency-Key', '`Idempotency-Key` must be 1 to 255 printable ASCII characters.');
    }
    const log = req.log ?? opts.logger;
    const scope = opts.scope ? `s:${sha256(opts.scope(req))}` : (req.context.auth?.id ?? 'anonymous');
    const recordKey = `${prefix}:${scope}:${sha256(header)}`;
    const path = req.originalUrl.split('?')[0] ?? req.originalUrl;
    const fingerprint = sha256(`${req.method}\n${path}\n${req.body === undefined ? '' : canonicalJson(req.body)}`);

    let record: IdempotencyRecord | undefined;
    try {
      const inFlight: InFlightRecord = { state: 'in_flight', fingerprint };
      if (!(await store.setIfAbsent(recordKey, JSON.stringify(inFlight), IN_FLIGHT_TTL_MS))) {
        const raw = await store.get(recordKey);
        // Expired or deleted between the two calls: run without a record rather than guess.
        record = raw === null ? undefined : (JSON.parse(raw) as IdempotencyRecord);
        if (record === undefined) {
          log.warn({ request_id: req.requestId }, 'idempotency record vanished; running the request without it');
          next();
          return;
        }
      }
    } catch (err) {
      // debug, not warn: a Redis outage is logged once by platform/redis.ts, not per request.
      log.debug({ err, request_id: req.requestId }, 'idempotency store unavailable; running the request without idempotency');
      next();
      return;
    }

    if (record) {
      if (record.fingerprint !== fingerprint) throw errors.idempotencyReplay();
      if (record.state === 'in_flight') {
        throw errors.conflict('A request with this Idempotency-Key is still in progress; retry when it has finished.', [
          { location: 'header', field: 'Idempotency-Key', message: 'The first request with this `Idempotency-Key` is still in progress.' },
        ]);
      }
      let body: Buffer;
      try {
        body = openBody(await opts.sealKey(), recordKey, record.sealed);
      } catch (err) {
        // A seal that does not open (a record written under another key): as if the record had vanished.
        log.warn({ err, request_id: req.requestId }, 'idempotency record does not open; running the request without it');
        next();
        return;
      }
      res.status(record.status);
      for (const [name, value] of Object.entries(record.headers)) res.setHeader(name, value);
      res.setHeader('Idempotent-Replayed', 'true');
      res.end(body);
      return;
    }

    let settled = false;
    // The answer is stored before it is sent (answer-hooks.ts), so a retry that arrives after it always finds the record.
    beforeEnd(
      res,
      async (body) => {
        settled = true;
        const status = res.statusCode;
        const headers: Record<string, string> = {};
        for (const name of STORED_HEADERS) {
          const v = res.getHeader(name);
          if (v !== undefined) headers[name] = Array.isArray(v) ? v.join(', ') : String(v);
        }
        try {
          if (status >= 500) return await store.delete(recordKey);
          const sealed = sealBody(await opts.sealKey(), recordKey, body);
          await store.set(recordKey, JSON.stringify({ state: 'done', fingerprint, status, headers, sealed } satisfies DoneRecord), TTL_MS);
        } catch (err) {
          log.warn({ err, request_id: req.requestId }, 'could not store the idempotent answer');
          // Not stored: free the key so that a retry runs instead of waiting out the in-flight record.
          await store.delete(recordKey).catch(() => undefined);
        }
      },
      true,
    );
    // A request that ends without an answer (client gone, crash in a stream) frees its key.
    res.on('close', () => {
      if (!settled) store.delete(recordKey).catch(() => undefined);
    });
    next();
  };
  // A GET, HEAD or OPTIONS, or a request without the header, passes at once, with no promise made.
  return (req, res, next) => {
    const header = req.get('Idempotency-Key');
    if (header === undefined || !METHODS.has(req.method)) return next();
    return handle(req, res, next, header);
  };
}

/** The idempotency records of a person, as an erasure counts and removes them (core/respondents/erasure.ts, OutsideRecords). */
export interface PersonIdempotencyRecords {
  count(address: string): Promise<number>;
  erase(address: string): Promise<number>;
}

/**
 * The stored answers that hold an address (docs/data-rights.md, "Erasing a person"): every finished record under
 * `${prefix}:idem:` whose sealed body, opened, holds `address` (lower case compared). Such an answer (a response
 * created with its address, a link minted for it) would otherwise replay the address for up to 24 h. Records of every
 * key and of the public submissions are read, whichever workspace they belong to (a record names its key, not its
 * workspace); deleting one only ends its replay early.
 */
export function personIdempotencyRecords(opts: { store: IdempotencyStore; sealKey: () => Promise<Buffer>; prefix?: string }): PersonIdempotencyRecords {
  const prefix = `${opts.prefix ?? 'fs'}:idem:`;
  const matching = async function* (address: string) {
    if (!opts.store.keys) return;
    const key = await opts.sealKey();
    for await (const recordKey of opts.store.keys(prefix)) {
      const raw = await opts.store.get(recordKey);
      if (raw === null) continue;
      const record = JSON.parse(raw) as IdempotencyRecord;
      if (record.state !== 'done') continue;
      let body: string;
      try {
        body = openBody(key, recordKey, record.sealed).toString('utf8');
      } catch {
        continue; // sealed under another key: not readable, not ours to judge
      }
      if (body.toLowerCase().includes(address)) yield recordKey;
    }
  };
  return {
    async count(address) {
      let n = 0;
      for await (const _ of matching(address)) n += 1;
      return n;
    },
    async erase(address) {
      let n = 0;
      for await (const recordKey of matching(address)) {
        await opts.store.delete(recordKey);
        n += 1;
      }
      return n;
    },
  };
}
