import type { ApiKeyMeta } from '../core/api-keys/api-keys.store';
import type { AppError } from '../core/errors';
import type { Logger } from 'pino';
import type { Style } from '../platform/style';

declare global {
  namespace Express {
    interface Request {
      /** Unique id of this request (`request_id`, `X-Request-Id`). */
      requestId: string;
      /** The authenticated key (set by platform/auth). */
      auth?: ApiKeyMeta;
      /** The workspace in the path, once access to it is checked. */
      workspaceId?: string;
      /** The style this request is answered in (docs/migrating-between-styles.md, "How the style is chosen"). */
      style: Style;
      /** A logger carrying this request's `request_id` (platform/http-log.ts; made on first use). */
      log?: Logger;
      /** A body that failed to parse, reported after the auth checks (docs/api-rules.md, "Order of checks"). */
      bodyError?: AppError;
    }
  }
}

export {};
