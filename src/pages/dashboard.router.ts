/**
 * The dashboard pages of shared links (docs/analytics.md, "Dashboard links"), no key, HTML answers on every path:
 *
 * - `GET /d/{token}`: the results page of the link's form, in `?lang=`, else the `Accept-Language` match among the
 *   form's languages, else its default (as the form pages choose); `?interval=day|week|month|year` picks the period of
 *   the score-over-time chart (a coarser one when the span needs more than MAX_SERIES_POINTS).
 * - `GET /d/{token}/export?format=csv|ndjson&t=…`: the export of the link's form (Style A shape) with the page's
 *   one-time download token, once per format; without respondents' addresses and email answers unless the link
 *   was minted with `include_addresses`.
 *
 * Every request counts against the public budget per client address, then reads the link's row (a revoked or
 * expired link, or a token that is not one: the 404 page, alike).
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { INTERVALS, type Interval } from '../core/analytics/analytics.store';
import { dashboardData } from '../core/dashboards/dashboard';
import {
  activeDashboardLink,
  claimDownloadToken,
  mintDownloadToken,
  withoutAddresses,
  type ActiveDashboardLink,
} from '../core/dashboards/dashboard-links.store';
import { chooseLanguage } from '../core/forms/public-form';
import type { Db } from '../db/connection';
import type { ExportSlots } from '../platform/export-slots';
import { streamResponsesExport, type ExportPresentation } from '../platform/export-stream';
import type { Logger } from '../platform/logger';
import { consumePublicBudget, type RateLimiter } from '../platform/rate-limit';
import { buildDashboardView } from './dashboard-view';
import { dashboardStrings } from './dashboard-i18n';
import { first, pageErrors } from './errors';
import { frameLanguage } from './i18n';
import { createPageRenderer } from './render';

export interface DashboardDeps {
  db: Db;
  logger: Logger;
  limiter: RateLimiter;
  /** config.authFailuresPerMinute: the public budget per client address. */
  publicPerMinute: number;
  /** The app's export caps: a download counts as an export of its link (docs/analytics.md, "Exports, slow clients and caps"). */
  exportSlots: ExportSlots;
  /** How a download presents its responses: Style A's presenter and spelling, chosen by the composition root (src/app.ts). */
  download: ExportPresentation;
}

/** The router of `/d/…`, mounted before authentication beside the form pages. */
export function dashboardRouter(deps: DashboardDeps): Router {
  const pages = createPageRenderer();
  const r = Router();
  const errors = pageErrors(pages, deps.logger, dashboardStrings, 'dashboard page failed');
  const notFound = errors.notFound;
  const failure = (req: Request, res: Response, err: unknown) => errors.failure(req, res, frameLanguage(req.get('Accept-Language')), err);
  // Budget first, for every path under /d/ (one that does not decode too), then the link: a guesser spends budget on every try.
  r.use('/d/', async (req, res, next) => {
    try {
      await consumePublicBudget(deps.limiter, res, req.ip, deps.publicPerMinute);
    } catch (err) {
      return failure(req, res, err);
    }
    next();
  });
  const withLink =
    (handler: (req: Request<{ token: string }>, res: Response, link: ActiveDashboardLink) => Promise<void>): RequestHandler<{ token: string }> =>
    async (req, res) => {
      try {
        const link = await activeDashboardLink(deps.db, req.params.token);
        if (!link) return notFound(req, res);
        await handler(req, res, link);
      } catch (err) {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        failure(req, res, err);
      }
    };

  r.get(
    '/d/:token',
    withLink(async (req, res, link) => {
      const asked = first(req.query.interval, 'ignore');
      const interval = asked !== undefined && (INTERVALS as readonly string[]).includes(asked) ? (asked as Interval) : undefined;
      const data = await dashboardData(deps.db, link.workspaceId, link.formId, interval);
      if (!data) return notFound(req, res);
      const lang = chooseLanguage(data.form, { query: first(req.query.lang, 'ignore'), acceptLanguage: req.get('Accept-Language') });
      const base = `/d/${encodeURIComponent(req.params.token)}`;
      const view = buildDashboardView(data, lang, base, await mintDownloadToken(deps.db, link), link.expiresAt);
      pages.send(res, 200, 'dashboard', view);
    }),
  );

  r.get(
    '/d/:token/export',
    withLink(async (req, res, link) => {
      const format = first(req.query.format, 'ignore');
      const t = first(req.query.t, 'ignore');
      if ((format !== 'csv' && format !== 'ndjson') || t === undefined) return notFound(req, res);
      // The slot before the claim: a download refused with 429 keeps its one-time token for the retry.
      const release = deps.exportSlots.acquire(`link:${link.id}`);
      try {
        if (!(await claimDownloadToken(deps.db, link, t, format))) return notFound(req, res);
        await streamResponsesExport(deps, req, res, {
          workspaceId: link.workspaceId,
          format,
          filters: { formId: link.formId },
          ...deps.download,
          ...(link.includeAddresses ? {} : { record: withoutAddresses }),
        });
      } finally {
        release();
      }
    }),
  );

  // A path that does not decode (`/d/%FF`): the 404 page.
  r.use('/d', (err: unknown, req: Request, res: Response, next: (err?: unknown) => void) => {
    if (err instanceof URIError) return notFound(req, res);
    return next(err);
  });
  return r;
}
