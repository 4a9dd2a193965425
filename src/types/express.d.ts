import type { ApiKeyMeta } from '../core/api-keys/api-keys.store';
import type { Logger } from 'pino';
import type { RequestContext } from '../platform/request-context';
import type { Style } from '../platform/style';

declare global {
  namespace Express {
    interface Request {
      /** What the pipeline's steps know about this request, filled once by each (platform/request-context.ts). */
      context: RequestContext;
      /** Unique id of this request (`request_id`, `X-Request-Id`): the context's. */
      readonly requestId: string;
      /** The authenticated key: the context's (set by platform/auth). */
      readonly auth?: ApiKeyMeta;
      /** The workspace in the path, once access to it is checked: the context's. */
      readonly workspaceId?: string;
      /** The style this request is answered in (docs/migrating-between-styles.md, "How the style is chosen"; platform/style-selection.ts). */
      readonly style: Style;
      /** A logger carrying this request's `request_id` (platform/http-log.ts; made on first use). */
      log?: Logger;
    }
  }
}

export {};
