/**
 * How the pages (the form pages, pages.router.ts; the dashboard pages, dashboard.router.ts) answer what went wrong:
 * always an HTML message page in the visitor's language, never the JSON error envelope (docs/collecting.md, "Hosted
 * pages"; docs/analytics.md, "Dashboard links"). One place, so the two routers cannot drift apart.
 */
import type { Request, Response } from 'express';
import { AppError } from '../core/errors';
import { DB_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../platform/error-handler';
import type { Logger } from '../platform/logger';
import { frameLanguage, pageStrings } from './i18n';
import type { PageRenderer } from './render';

/**
 * A query parameter as one string, else undefined. A repeated parameter (`?lang=de&lang=fr`) gives its first value,
 * or undefined with `repeated: 'ignore'` (the dashboard pages, which read only a single value).
 */
export function first(v: unknown, repeated: 'first' | 'ignore' = 'first'): string | undefined {
  if (typeof v === 'string') return v;
  return repeated === 'first' && Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
}

/** The words of a 404 page (pageStrings for the form pages, dashboardStrings for the dashboard pages). */
export type NotFoundStrings = (lang: string) => { notFoundTitle: string; notFoundText: string };

/** The error pages of one router. */
export interface PageErrors {
  /** Sends the message page: `heading` and `text` in `lang`, with `status`. */
  message: (res: Response, status: number, lang: string, heading: string, text: string) => void;
  /** The 404 page, in the language of the visitor's `Accept-Language`. */
  notFound: (req: Request, res: Response) => void;
  /**
   * Known failures as pages: 410 an expired link, 409 a link that has taken its responses, 400 a bad link, 429 over
   * a budget (with the error's headers), 503 with `Retry-After` when the database cannot be reached (docs/operations.md,
   * "Outages"); anything else is logged and shown as a generic 500 page.
   */
  failure(req: Request, res: Response, lang: string, err: unknown): void;
}

/**
 * The error pages of a router that renders with `pages`.
 * @param notFoundStrings the words of its 404 page; `logLabel` the log line of an unexpected failure.
 */
export function pageErrors(pages: PageRenderer, logger: Logger, notFoundStrings: NotFoundStrings, logLabel: string): PageErrors {
  const message: PageErrors['message'] = (res, status, lang, heading, text) => pages.send(res, status, 'message', { lang, heading, text });
  return {
    message,
    notFound(req, res) {
      const lang = frameLanguage(req.get('Accept-Language'));
      const s = notFoundStrings(lang);
      message(res, 404, lang, s.notFoundTitle, s.notFoundText);
    },
    failure(req, res, lang, err) {
      const s = pageStrings(lang);
      if (err instanceof AppError) {
        for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
        if (err.code === 'link_expired') return message(res, 410, lang, s.linkExpiredTitle, s.linkExpiredText);
        if (err.code === 'link_already_used') return message(res, 409, lang, s.linkUsedTitle, s.linkUsedText);
        if (err.code === 'validation_error') return message(res, 400, lang, s.linkInvalidTitle, s.linkInvalidText);
        if (err.code === 'rate_limit_exceeded') return message(res, 429, lang, s.tooManyTitle, s.tooManyText);
      }
      // The database cannot be reached: a 503 page the visitor may retry.
      if (isDatabaseUnavailable(err)) {
        res.setHeader('Retry-After', String(DB_RETRY_AFTER_SECONDS));
        return message(res, 503, lang, s.errorTitle, s.errorText);
      }
      (req.log ?? logger).error({ err, request_id: req.requestId }, logLabel);
      return message(res, 500, lang, s.errorTitle, s.errorText);
    },
  };
}
