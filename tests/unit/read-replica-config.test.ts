/**
 * DATABASE_READ_URL and DATABASE_READ_MAX_LAG_MS (docs/operations.md, "Read replicas"), and the WAL
 * positions the replica poller compares.
 */
import { ConfigError, loadConfig } from '../../src/config';
import { parseLsn, replicaName } from '../../src/db/replicas';

const primary = 'postgres://app@db-primary:5432/feedback';

describe('DATABASE_READ_URL', () => {
  it('is empty, with a 5 s lag bound, when unset', () => {
    const config = loadConfig({}, { DATABASE_URL: primary });
    expect(config.databaseReadUrls).toEqual([]);
    expect(config.databaseReadMaxLagMs).toBe(5000);
  });

  it('takes one or more comma-separated URLs', () => {
    const config = loadConfig(
      {},
      { DATABASE_URL: primary, DATABASE_READ_URL: ' postgres://r1/feedback , postgresql://u:p@r2:6432/feedback', DATABASE_READ_MAX_LAG_MS: '2000' },
    );
    expect(config.databaseReadUrls).toEqual(['postgres://r1/feedback', 'postgresql://u:p@r2:6432/feedback']);
    expect(config.databaseReadMaxLagMs).toBe(2000);
  });

  it.each([
    ['mysql://r1/feedback', /DATABASE_READ_URL must be a URL starting with postgres:\/\//],
    ['postgres://r1/feedback,', /DATABASE_READ_URL must be comma-separated postgres:\/\/ URLs/],
  ])('refuses %p naming the variable', (value, message) => {
    expect(() => loadConfig({}, { DATABASE_URL: primary, DATABASE_READ_URL: value })).toThrow(message);
  });

  it('is a configuration error on the embedded database (no DATABASE_URL)', () => {
    expect(() => loadConfig({}, { DATABASE_READ_URL: 'postgres://r1/feedback' })).toThrow(ConfigError);
    expect(() => loadConfig({}, { DATABASE_READ_URL: 'postgres://r1/feedback' })).toThrow(/DATABASE_READ_URL must be unset while DATABASE_URL is unset/);
  });

  it('refuses a lag bound that is not a positive integer', () => {
    expect(() => loadConfig({}, { DATABASE_URL: primary, DATABASE_READ_MAX_LAG_MS: '0' })).toThrow(/DATABASE_READ_MAX_LAG_MS must be a positive integer/);
  });
});

describe('replica poller values', () => {
  it('orders WAL positions across the 32-bit boundary', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    expect(() => parseLsn('nope')).toThrow(/not a WAL position/);
  });

  it('names a replica without its credentials', () => {
    expect(replicaName('postgres://user:secret@r2:6432/feedback')).toBe('r2:6432/feedback');
    expect(replicaName('postgres://r1/feedback')).toBe('r1:5432/feedback');
  });
});
