/**
 * Listening server: opens the database (migrating when embedded or asked), builds the app, listens,
 * and shuts down gracefully on SIGINT/SIGTERM.
 */
import type { Config } from './config';

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:3000`. */
  url: string;
  port: number;
  /** Stops accepting connections, drains, closes the database and Redis. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Apply pending migrations before listening (always done on the embedded database). */
  migrate?: boolean;
}

export async function startServer(_config: Config, _opts: StartOptions = {}): Promise<RunningServer> {
  throw new Error('not implemented yet');
}
