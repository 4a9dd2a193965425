/**
 * REDIS_URL forms (docs/operations.md, "Redis with failover (Sentinel)", "Redis Cluster"): a plain URL stays
 * one URL, a Sentinel URL becomes the sentinels and the master's name, a cluster URL its seed nodes,
 * anything else is a ConfigError naming REDIS_URL.
 */
import { ConfigError, loadConfig, redisTarget } from '../../src/config';

describe('REDIS_URL', () => {
  it('keeps a plain URL as it is', () => {
    expect(redisTarget('redis://:pw@10.0.0.1:6380/2')).toEqual({ kind: 'url', url: 'redis://:pw@10.0.0.1:6380/2' });
    expect(loadConfig({}, { REDIS_URL: 'rediss://cache.example:6380' }).redisUrl).toBe('rediss://cache.example:6380');
  });

  it('reads sentinels, the master name, credentials and the database', () => {
    expect(redisTarget('redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: '127.0.0.1', port: 26379 },
        { host: '127.0.0.1', port: 26380 },
      ],
      name: 'mymaster',
      db: 0,
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(redisTarget('rediss+sentinel://app:p%40ss@s1.example,s2.example:5000,[::1]:26381/cache?db=3')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1.example', port: 26379 },
        { host: 's2.example', port: 5000 },
        { host: '::1', port: 26381 },
      ],
      name: 'cache',
      db: 3,
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
    expect(redisTarget('redis+sentinel://:secret@h:1/m')).toMatchObject({ password: 'secret', username: undefined });
    expect(loadConfig({}, { REDIS_URL: ' redis+sentinel://h:26379/m ' }).redisUrl).toBe('redis+sentinel://h:26379/m');
  });

  it.each([
    'redis+sentinel://h:26379',
    'redis+sentinel://h:26379/',
    'redis+sentinel:///m',
    'redis+sentinel://h:0/m',
    'redis+sentinel://h:70000/m',
    'redis+sentinel://h:26379,/m',
    'redis+sentinel://h:26379/m?db=x',
    'redis+sentinel://h:26379/m?role=slave',
    'redis+sentinel://h:26379/m/extra',
    'redis+cluster://h:7000/mymaster',
    'redis+cluster://h:7000,',
    'redis+cluster://h:99999',
    'redis+cluster://:7000',
    'redis+cluster://h:7000?role=slave',
    'redis+cluster://h:7000?db=x',
    'redis+shard://h:7000',
    'http://h:6379',
  ])('refuses %s naming REDIS_URL', (value) => {
    expect(() => loadConfig({}, { REDIS_URL: value })).toThrow(ConfigError);
    expect(() => loadConfig({}, { REDIS_URL: value })).toThrow(/^REDIS_URL must be/);
  });

  it('reads the seed nodes, credentials and TLS of a Redis Cluster', () => {
    expect(redisTarget('redis+cluster://127.0.0.1:7000,127.0.0.1:7001')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: '127.0.0.1', port: 7001 },
      ],
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(redisTarget('rediss+cluster://app:p%40ss@clustercfg.example.cache.amazonaws.com,[::1]:7002/?db=0')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'clustercfg.example.cache.amazonaws.com', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
    expect(redisTarget('redis+cluster://:secret@h:7000')).toMatchObject({ password: 'secret', username: undefined });
    expect(loadConfig({}, { REDIS_URL: ' redis+cluster://h:7000 ' }).redisUrl).toBe('redis+cluster://h:7000');
  });

  it('refuses a database other than 0 for a cluster, naming REDIS_URL', () => {
    expect(() => loadConfig({}, { REDIS_URL: 'redis+cluster://h:7000,h:7001?db=2' })).toThrow(/^REDIS_URL must be .*only database 0/);
  });
});
