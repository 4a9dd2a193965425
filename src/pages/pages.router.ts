/**
 * The hosted form pages and the email-link endpoints that need no key (CONTRACT sections 11, 12):
 *
 * - `GET /f/{form_id}`: the form as an HTML page in the chosen language; with `?t=` (an email link)
 *   it records a `click` and carries the token into the POST.
 * - `POST /f/{form_id}` (`application/x-www-form-urlencoded`): submits through the core submission
 *   path; `303` to the thank-you page, or the page again (`400`) with a message beside each wrong answer.
 * - `GET /f/{form_id}/thanks`: the thank-you page in the same language.
 * - `GET /e/{token}.gif`: the open-tracking pixel; records an `open` for a valid token, always a GIF.
 *
 * Pages answer HTML on every path, errors included (404 unknown form, 400/410 bad link, 429 over the
 * submission budget), never the JSON envelope.
 */
import { randomBytes } from 'node:crypto';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { AppError, errors } from '../core/errors';
import { DB_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../platform/error-handler';
import { recordEmailEvents } from '../core/email-events/email-events.write';
import { chooseLanguage, loadPublicForm, type PublicForm } from '../core/forms/public-form';
import { verifyLinkToken, readLinkToken, type LinkClaims } from '../core/links/links';
import { formDefinitionFromDb, validateAnswers, type AnswerProblem } from '../core/responses/answers';
import { submitResponse } from '../core/responses/submit';
import type { Db } from '../platform/db/connection';
import type { Logger } from '../platform/logger';
import { consumeSubmissionBudget, type RateLimiter } from '../platform/rate-limit';
import { answersFromBody, buildFormView, HONEYPOT_FIELD, postedValue, type PostedBody } from './form-view';
import { frameLanguage, pageStrings } from './i18n';
import { createPageRenderer, type PageRenderer } from './render';
import { claimSubmissionToken, isSubmissionTokenClaimed, DuplicateSubmission } from './submission-tokens';

export interface PagesDeps {
  db: Db;
  logger: Logger;
  limiter: RateLimiter;
  /** config.submissionsPerMinute: page POSTs share this budget with the public JSON way. */
  submissionsPerMinute: number;
}

/** A transparent 1×1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const MAX_TOKEN_LENGTH = 128;

const first = (v: unknown): string | undefined => (typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined);

function newSubmissionToken(): string {
  return randomBytes(18).toString('base64url');
}

function thanksPath(formId: string, lang: string): string {
  return `/f/${encodeURIComponent(formId)}/thanks?lang=${encodeURIComponent(lang)}`;
}

/** A page-friendly message for an answer problem (the core's messages are written for API clients). */
function pageMessage(p: AnswerProblem, lang: string, questionType: string | undefined, sent: string): string {
  const s = pageStrings(lang);
  if (p.field === 'answers') return s.answerRequired;
  if ((questionType === 'number' || questionType === 'nps' || questionType === 'rating') && !/^[-+]?[\d.]+([eE][-+]?\d+)?$/.test(sent.trim())) {
    return s.notANumber;
  }
  return p.message.charAt(0).toUpperCase() + p.message.slice(1) + (p.message.endsWith('.') ? '' : '.');
}

/**
 * The router of the pages (mounted before authentication: no key). Reads forms through the core, submits
 * through `submitResponse`, records link events through `recordEmailEvents`; answers HTML on every path.
 */
export function pagesRouter(deps: PagesDeps): Router {
  const { db, logger } = deps;
  const pages: PageRenderer = createPageRenderer();
  const r = Router();

  const message = (res: Response, status: number, lang: string, heading: string, text: string) =>
    pages.send(res, status, 'message', { lang, heading, text });

  const notFoundPage = (req: Request, res: Response) => {
    const lang = frameLanguage(req.get('Accept-Language'));
    const s = pageStrings(lang);
    message(res, 404, lang, s.notFoundTitle, s.notFoundText);
  };

  /** Known failures as pages; anything else is logged and shown as a generic 500 page. */
  const failure = (req: Request, res: Response, lang: string, err: unknown) => {
    const s = pageStrings(lang);
    if (err instanceof AppError) {
      for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
      if (err.code === 'link_expired') return message(res, 410, lang, s.linkExpiredTitle, s.linkExpiredText);
      if (err.code === 'validation_error') return message(res, 400, lang, s.linkInvalidTitle, s.linkInvalidText);
      if (err.code === 'rate_limit_exceeded') return message(res, 429, lang, s.tooManyTitle, s.tooManyText);
    }
    // The database cannot be reached (CONTRACT section 14): a 503 page the visitor may retry.
    if (isDatabaseUnavailable(err)) {
      res.setHeader('Retry-After', String(DB_RETRY_AFTER_SECONDS));
      return message(res, 503, lang, s.errorTitle, s.errorText);
    }
    (req.log ?? logger).error({ err, request_id: req.requestId }, 'page failed');
    return message(res, 500, lang, s.errorTitle, s.errorText);
  };

  /**
   * The link's claims and the form they name, or throws (400 tampered/foreign, 410 expired). Form ids are
   * unique in practice, but imports may reuse one in two workspaces: the token's workspace then decides.
   */
  const linkForm = async (pf: PublicForm, formId: string, token: string): Promise<{ claims: LinkClaims; pf: PublicForm }> => {
    const claims = await verifyLinkToken(db, token, formId);
    if (claims.workspaceId === pf.workspaceId) return { claims, pf };
    const own = await formDefinitionFromDb(db, claims.workspaceId, formId);
    if (!own) throw errors.invalid('query', 't', '`t` is an email link for another form.');
    const { workspaceId, name, ...form } = own;
    return { claims, pf: { workspaceId, name, form } };
  };

  r.get('/f/:form_id', async (req, res) => {
    const formId = req.params.form_id;
    let pf = await loadPublicForm(db, formId);
    if (!pf) return notFoundPage(req, res);
    const hints = { query: first(req.query.lang), acceptLanguage: req.get('Accept-Language') };
    let lang = chooseLanguage(pf.form, hints);
    const t = first(req.query.t);
    try {
      if (t !== undefined) {
        const link = await linkForm(pf, formId, t);
        const { claims } = link;
        pf = link.pf;
        lang = chooseLanguage(pf.form, hints);
        await recordEmailEvents(db, pf.workspaceId, [
          { emailId: claims.emailId, email: claims.email, type: 'click', rowId: claims.rowId, formId, flowId: claims.flowId },
        ]);
      }
    } catch (err) {
      return failure(req, res, lang, err);
    }
    const view = buildFormView({ form: pf.form, formName: pf.name, lang, body: {}, errors: new Map(), token: newSubmissionToken(), linkToken: t });
    pages.send(res, 200, 'form', view);
  });

  // The form body parser only here (the API takes JSON only); a body it cannot read is a page, not JSON.
  const urlencoded = express.urlencoded({ extended: false, limit: '200kb', parameterLimit: 2000 });
  const parseForm: RequestHandler = (req, res, next) =>
    urlencoded(req, res, (err?: unknown) => {
      if (!err) return next();
      const lang = frameLanguage(req.get('Accept-Language'));
      const s = pageStrings(lang);
      if ((err as { status?: number }).status === 413) return message(res, 413, lang, s.tooLargeTitle, s.tooLargeText);
      return message(res, 400, lang, s.errorTitle, s.unreadableText);
    });

  r.post('/f/:form_id', parseForm, async (req, res) => {
    const formId = String(req.params.form_id);
    const found = await loadPublicForm(db, formId);
    if (!found) return notFoundPage(req, res);
    let pf: PublicForm = found;
    const body = (req.is('application/x-www-form-urlencoded') && req.body && typeof req.body === 'object' ? req.body : {}) as PostedBody;
    const hints = { query: postedValue(body, '_lang') || first(req.query.lang), acceptLanguage: req.get('Accept-Language') };
    let lang = chooseLanguage(pf.form, hints);
    const linkToken = postedValue(body, '_t') || undefined;
    let claims: LinkClaims | undefined;
    try {
      await consumeSubmissionBudget(deps.limiter, res, req.ip, formId, deps.submissionsPerMinute);
      if (linkToken !== undefined) {
        const link = await linkForm(pf, formId, linkToken);
        ({ claims, pf } = link);
        lang = chooseLanguage(pf.form, hints);
      }
    } catch (err) {
      return failure(req, res, lang, err);
    }
    const thanks = thanksPath(formId, lang);
    // A filled honeypot is a bot: store nothing, but answer as if all went well.
    if (postedValue(body, HONEYPOT_FIELD) !== '') return res.redirect(303, thanks);

    const sentToken = postedValue(body, '_token');
    const token = sentToken !== '' && sentToken.length <= MAX_TOKEN_LENGTH ? sentToken : undefined;
    if (token !== undefined && (await isSubmissionTokenClaimed(db, pf.workspaceId, token))) return res.redirect(303, thanks);

    const answers = answersFromBody(pf.form, body);
    const rerender = (status: number, errors: Map<string, string>, formErrors: string[]) => {
      const view = buildFormView({ form: pf.form, formName: pf.name, lang, body, errors, formErrors, token: token ?? newSubmissionToken(), linkToken });
      pages.send(res, status, 'form', view);
    };

    const checked = validateAnswers(pf.form, answers, { language: lang, enforceRequired: true });
    // PostgreSQL cannot store NUL (\u0000): a message beside the answer instead of a failed insert.
    const withNul = answers.filter((a) => JSON.stringify(a.value).includes('\\u0000'));
    if (checked.problems.length > 0 || withNul.length > 0) {
      const errors = new Map<string, string>(withNul.map((a) => [a.question_id, pageStrings(lang).cannotStore]));
      const formErrors: string[] = [];
      for (const p of checked.problems) {
        const q = p.questionId === undefined ? undefined : pf.form.questions.find((x) => x.id === p.questionId);
        if (!q) formErrors.push(p.message);
        else if (!errors.has(q.id)) errors.set(q.id, pageMessage(p, lang, q.type, postedValue(body, `q.${q.id}`)));
      }
      return rerender(400, errors, formErrors);
    }

    try {
      await submitResponse(
        db,
        pf.workspaceId,
        {
          formId,
          answers,
          language: lang,
          ...(claims ? { respondentEmail: claims.email, emailId: claims.emailId, rowId: claims.rowId } : {}),
        },
        { beforeCommit: token === undefined ? undefined : (trx, record) => claimSubmissionToken(trx, pf.workspaceId, formId, token, record.id) },
      );
    } catch (err) {
      if (err instanceof DuplicateSubmission) return res.redirect(303, thanks);
      if (err instanceof AppError && err.code === 'validation_error') {
        return rerender(400, new Map(), (err.details ?? []).map((d) => d.message));
      }
      return failure(req, res, lang, err);
    }
    return res.redirect(303, thanks);
  });

  r.get('/f/:form_id/thanks', async (req, res) => {
    const formId = req.params.form_id;
    const pf = await loadPublicForm(db, formId);
    if (!pf) return notFoundPage(req, res);
    const lang = chooseLanguage(pf.form, { query: first(req.query.lang), acceptLanguage: req.get('Accept-Language') });
    pages.send(res, 200, 'thanks', { lang, s: pageStrings(lang), formName: pf.name });
  });

  r.get('/e/:token.gif', async (req, res) => {
    try {
      const claims = await readLinkToken(db, req.params.token);
      if (claims) {
        await recordEmailEvents(db, claims.workspaceId, [
          { emailId: claims.emailId, email: claims.email, type: 'open', rowId: claims.rowId, formId: claims.formId, flowId: claims.flowId },
        ]);
      }
    } catch (err) {
      // The pixel is always served: a mail client shows a broken image otherwise.
      (req.log ?? logger).error({ err, request_id: req.requestId }, 'open event not recorded');
    }
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('image/gif').send(PIXEL);
  });

  // Errors raised while routing a page (a path whose percent-encoding does not decode, `/f/%FF`): pages
  // answer HTML, and the pixel is served whatever happens.
  r.use((err: unknown, req: Request, res: Response, next: (err?: unknown) => void) => {
    if (req.path.startsWith('/e/')) {
      res.setHeader('Cache-Control', 'no-store');
      return res.type('image/gif').send(PIXEL);
    }
    if (!req.path.startsWith('/f/')) return next(err);
    const lang = frameLanguage(req.get('Accept-Language'));
    const s = pageStrings(lang);
    if (err instanceof URIError) return message(res, 400, lang, s.errorTitle, s.unreadableText);
    return failure(req, res, lang, err);
  });

  return r;
}
