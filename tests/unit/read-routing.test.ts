/**
 * The routing step of read replicas (docs/operations.md, "Read replicas") on stand-in databases: which
 * router set answers, read-your-writes by recorded WAL position, the retry on the primary after a
 * connection error, and Redis failing. The real replica is tests/ha/pg-replica.test.ts.
 */
import express, { Router } from 'express';
import request from 'supertest';
import type { Db } from '../../src/db';
import type { ReadReplicas } from '../../src/db/replicas';
import { memoryIdempotencyStore, type IdempotencyStore } from '../../src/platform/idempotency';
import { createLogger } from '../../src/platform/logger';
import { readRouting, type ReadTarget } from '../../src/platform/read-routing';
import { installAnswerHooks } from '../../src/platform/answer-hooks';
import { operationIndex } from '../../src/platform/operations';
import { requestContext } from '../../src/platform/request-context';

const primary = { name: 'primary' } as unknown as Db;
const replica = { name: 'replica' } as unknown as Db;

function setup(opts: { store?: IdempotencyStore; replicaFails?: Error } = {}) {
  let lsn = 100n;
  const picks: Array<bigint | undefined> = [];
  const downs: unknown[] = [];
  const reads: ReadTarget[] = [];
  let replayed = 0n;
  const replicas: ReadReplicas = {
    dbs: [replica],
    pick: (min) => (picks.push(min), downs.length === 0 && (min === undefined || replayed >= min) ? 0 : undefined),
    markDown: (_i, err) => void downs.push(err),
    primaryLsn: async () => lsn,
    status: () => [],
    start: async () => undefined,
    stop: async () => undefined,
  };
  const build = (db: Db) => {
    const r = Router();
    r.get('/thing', (_req, res) => {
      if (db === replica && opts.replicaFails) throw opts.replicaFails;
      res.json({ from: (db as unknown as { name: string }).name });
    });
    r.post('/thing', (_req, res) => {
      lsn += 10n;
      res.status(201).json({ from: (db as unknown as { name: string }).name });
    });
    return r;
  };
  const app = express();
  // As buildApp wires it: the answer hooks, the request context, the key filled by authentication.
  installAnswerHooks(app);
  app.use(requestContext(app, operationIndex({ paths: {} })));
  app.use((req, _res, next) => {
    const key = req.get('x-key');
    if (key) req.context.auth = { id: key } as typeof req.context.auth;
    next();
  });
  const logger = createLogger('silent');
  app.use(readRouting({ primary, replicas, build, logger, maxLagMs: 5000, onRead: (t) => reads.push(t), store: opts.store ?? memoryIdempotencyStore() }));
  app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ error: err.message });
  });
  return { app, picks, downs, reads, replay: (n: bigint) => (replayed = n) };
}

describe('readRouting', () => {
  it('answers GET from a replica and writes from the primary', async () => {
    const t = setup();
    expect((await request(t.app).get('/thing').set('x-key', 'k1')).body).toEqual({ from: 'replica' });
    expect((await request(t.app).post('/thing').set('x-key', 'k1')).body).toEqual({ from: 'primary' });
    expect(t.reads).toEqual(['replica']);
  });

  it('reads a key on the primary until a replica has replayed past its last write', async () => {
    const t = setup();
    await request(t.app).post('/thing').set('x-key', 'k1').expect(201);
    expect((await request(t.app).get('/thing').set('x-key', 'k1')).body).toEqual({ from: 'primary' });
    expect(t.picks.at(-1)).toBe(110n);
    // Another key is not held back.
    expect((await request(t.app).get('/thing').set('x-key', 'k2')).body).toEqual({ from: 'replica' });
    t.replay(110n);
    expect((await request(t.app).get('/thing').set('x-key', 'k1')).body).toEqual({ from: 'replica' });
  });

  it('takes the later of its own and the shared position (a write on another instance)', async () => {
    const shared = memoryIdempotencyStore();
    const t = setup({ store: shared });
    await request(t.app).post('/thing').set('x-key', 'k1').expect(201);
    await shared.set('fs:ryw:k1', '500', 60_000);
    await request(t.app).get('/thing').set('x-key', 'k1');
    expect(t.picks.at(-1)).toBe(500n);
  });

  it('runs a read again on the primary when the replica fails with a connection error, and marks it down', async () => {
    const t = setup({ replicaFails: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5434'), { code: 'ECONNREFUSED' }) });
    const res = await request(t.app).get('/thing').set('x-key', 'k1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ from: 'primary' });
    expect(t.downs).toHaveLength(1);
    expect(t.reads).toEqual(['replica', 'primary']);
  });

  it.each([
    ['a fault of the request', new Error('a bug')],
    ['a statement timeout (as slow on the primary)', Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })],
  ])('passes %s on, without a retry', async (_what, err) => {
    const t = setup({ replicaFails: err });
    const res = await request(t.app).get('/thing').set('x-key', 'k1');
    expect(res.status).toBe(500);
    expect(t.downs).toHaveLength(0);
    expect(t.reads).toEqual(['replica']);
  });

  it('reads on the primary when Redis fails and this process holds no position for the key', async () => {
    const failing: IdempotencyStore = {
      setIfAbsent: async () => Promise.reject(new Error('Redis down')),
      get: async () => Promise.reject(new Error('Redis down')),
      set: async () => Promise.reject(new Error('Redis down')),
      delete: async () => Promise.reject(new Error('Redis down')),
    };
    const t = setup({ store: failing });
    expect((await request(t.app).get('/thing').set('x-key', 'k1')).body).toEqual({ from: 'primary' });
    expect(t.picks).toEqual([]);
  });
});
