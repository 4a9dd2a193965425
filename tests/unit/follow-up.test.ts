/**
 * Follow-up transactions (src/db/follow-up.ts; docs/decisions.md, "Who opens transactions"): single-flight per key,
 * requests made during a run coalesced into one more run that starts after them, the work repeated while it reports
 * more; work registered in a transaction starts only after withTransaction commits, never after a rollback.
 */
import type { Db, DbTransaction } from '../../src/db';
import { withTransaction } from '../../src/db';
import { afterCommit, runFollowUp, settleFollowUps } from '../../src/db/follow-up';

/** A stand-in for knex: `transaction(fn)` runs fn with a fresh fake transaction (what withTransaction and runFollowUp call). */
function fakeDb(): Db {
  return { transaction: async (fn: (trx: DbTransaction) => Promise<unknown>) => fn({ isTransaction: true } as unknown as DbTransaction) } as unknown as Db;
}

describe('runFollowUp', () => {
  it('runs once per key at a time and serves every request made meanwhile by one more run', async () => {
    const db = fakeDb();
    const started: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const work = async () => {
      started.push(started.length + 1);
      if (started.length === 1) await gate;
      return false;
    };
    const first = runFollowUp(db, 'k', work);
    await Promise.resolve();
    const during = [runFollowUp(db, 'k', work), runFollowUp(db, 'k', work), runFollowUp(db, 'k', work)];
    release();
    await Promise.all([first, ...during]);
    expect(started).toEqual([1, 2]);
  });

  it('repeats the work while it reports more, and keys run side by side', async () => {
    const db = fakeDb();
    let left = 3;
    const seen: string[] = [];
    await Promise.all([
      runFollowUp(db, 'a', async () => {
        seen.push('a');
        return --left > 0;
      }),
      runFollowUp(db, 'b', async () => {
        seen.push('b');
        return false;
      }),
    ]);
    expect(seen.filter((k) => k === 'a')).toHaveLength(3);
    expect(seen).toContain('b');
  });
});

describe('runFollowUp with gatherMs', () => {
  /** Work that counts its passes. */
  const counted = () => {
    const c = { passes: 0, work: async () => ((c.passes += 1), false) };
    return c;
  };

  it('serves every request made while it gathers with one pass, after the wait', async () => {
    const db = fakeDb();
    const c = counted();
    const work = c.work;
    const t0 = Date.now();
    const first = runFollowUp(db, 'g', work, { gatherMs: 50 });
    const more = [runFollowUp(db, 'g', work, { gatherMs: 50 }), runFollowUp(db, 'g', work, { gatherMs: 50 })];
    await Promise.resolve();
    expect(c.passes).toBe(0);
    await Promise.all([first, ...more]);
    expect(c.passes).toBe(1);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
  });

  it('starts at once when a request without gathering joins (a reader), and settleFollowUps does not wait it out', async () => {
    const db = fakeDb();
    const c = counted();
    const work = c.work;
    const t0 = Date.now();
    const gathering = runFollowUp(db, 'r', work, { gatherMs: 60_000 });
    await runFollowUp(db, 'r', work);
    await gathering;
    expect(c.passes).toBe(1);
    void runFollowUp(db, 's', work, { gatherMs: 60_000 });
    await settleFollowUps(db);
    expect(c.passes).toBe(2);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});

describe('afterCommit', () => {
  it('starts the work after withTransaction commits, not after a rollback, and not in a transaction it did not open', async () => {
    const db = fakeDb();
    const ran: string[] = [];
    const work = (name: string) => async () => {
      ran.push(name);
      return false;
    };
    await withTransaction(db, async (trx) => {
      expect(afterCommit(trx, 'x', work('committed'))).toBe(true);
      expect(ran).toEqual([]);
    });
    await expect(
      withTransaction(db, async (trx) => {
        afterCommit(trx, 'y', work('rolled back'));
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(afterCommit({ isTransaction: true } as unknown as DbTransaction, 'z', work('foreign'))).toBe(false);
    await settleFollowUps(db);
    expect(ran).toEqual(['committed']);
  });
});
