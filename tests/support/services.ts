/**
 * Finds the PostgreSQL server and Redis the tests run against: the URLs in the environment
 * (TEST_DATABASE_URL / DATABASE_URL, TEST_REDIS_URL / REDIS_URL), else the local servers on their
 * standard ports, else testcontainers where a Docker engine answers. With CI=true a missing service
 * fails the run; elsewhere it fails too, with a message saying how to start it (nothing is skipped).
 */
import net from 'node:net';

function reachable(host: string, port: number, timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export interface Services {
  /** Admin URL of the PostgreSQL server (any database; test databases are created beside it). */
  postgresAdminUrl: string;
  redisUrl: string;
  stop(): Promise<void>;
}

export async function findServices(env = process.env): Promise<Services> {
  const stops: Array<() => Promise<void>> = [];
  let postgresAdminUrl = env.TEST_DATABASE_URL || env.DATABASE_URL;
  let redisUrl = env.TEST_REDIS_URL || env.REDIS_URL;
  if (!postgresAdminUrl && (await reachable('127.0.0.1', 5432))) {
    postgresAdminUrl = 'postgres://postgres@127.0.0.1:5432/postgres';
  }
  if (!redisUrl && (await reachable('127.0.0.1', 6379))) redisUrl = 'redis://127.0.0.1:6379';
  if (!postgresAdminUrl || !redisUrl) {
    const docker = await dockerAvailable();
    if (docker && !postgresAdminUrl) {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const pg = await new PostgreSqlContainer('postgres:15-alpine').start();
      postgresAdminUrl = pg.getConnectionUri();
      stops.push(async () => void (await pg.stop()));
    }
    if (docker && !redisUrl) {
      const { RedisContainer } = await import('@testcontainers/redis');
      const redis = await new RedisContainer('redis:7-alpine').start();
      redisUrl = redis.getConnectionUrl();
      stops.push(async () => void (await redis.stop()));
    }
  }
  const missing = [!postgresAdminUrl && 'PostgreSQL', !redisUrl && 'Redis'].filter(Boolean);
  if (missing.length > 0) {
    throw new Error(
      `${missing.join(' and ')} not reachable: set TEST_DATABASE_URL / TEST_REDIS_URL, start the local ` +
        'servers (see README, "Tests"), or run a Docker engine for testcontainers.',
    );
  }
  return {
    postgresAdminUrl: postgresAdminUrl!,
    redisUrl: redisUrl!,
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
    },
  };
}

async function dockerAvailable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/** The URL of database `name` on the same server as `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
