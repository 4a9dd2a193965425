/**
 * The fold's stop (src/platform/change-fold.ts; docs/api-rules.md, "Conditional requests"): `stop()` ends a fold that
 * still has a backlog after its statement in progress, instead of folding the whole backlog first.
 */
import type { Db } from '../../src/db';
import { startChangeFold } from '../../src/platform/change-fold';
import { createLogger } from '../../src/platform/logger';

describe('startChangeFold', () => {
  it('stops a fold with a backlog after its statement in progress', async () => {
    let statements = 0;
    let started!: () => void;
    const first = new Promise<void>((resolve) => (started = resolve));
    // Every statement folds a full batch: a backlog that never ends.
    const db = {
      raw: async () => {
        statements += 1;
        started();
        await new Promise((r) => setTimeout(r, 5));
        return { rows: [{ n: 10_000 }] };
      },
    } as unknown as Db;
    const fold = startChangeFold(db, createLogger('silent'), 10);
    await first;
    await fold.stop();
    const atStop = statements;
    expect(atStop).toBeLessThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 50));
    expect(statements).toBe(atStop);
  });
});
