/**
 * The hosted form pages and the email-link endpoints that need no key (docs/collecting.md, "Hosted pages"; docs/collecting.md, "Email links"):
 *
 * - `GET /f/{form_id}`: the form as an HTML page in the chosen language; with `?t=` (an email link)
 *   it records a `click` and carries the token into the POST.
 * - `POST /f/{form_id}` (`application/x-www-form-urlencoded`): submits through the core submission
 *   path; `303` to the thank-you page, or the page again (`400`) with a message beside each wrong answer.
 * - `GET /f/{form_id}/thanks`: the thank-you page in the same language.
 * - `GET /e/{token}.gif`: the open-tracking pixel; records an `open` for a valid token, always a GIF.
 *
 * Pages answer HTML on every path, errors included (404 unknown form, 400/410 bad link, 409 a link that has
 * taken its responses, 429 over the submission budget), never the JSON envelope.
 */
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { AppError, errors } from '../core/errors';
import { DB_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../platform/error-handler';
import { recordEmailEvents } from '../core/email-events/email-events.store';
import { chooseLanguage, loadPublicForm, type LanguageHints, type PublicForm } from '../core/forms/public-form';
import { claimLinkUse, isLinkUsedUp } from '../core/links/link-uses';
import { verifyLinkToken, readLinkToken, type LinkClaims } from '../core/links/links';
import { formDefinitionFromDb } from '../core/forms/form-model';
import { validateAnswers, type AnswerProblem } from '../core/responses/answers';
import { checkSubmission, storeSubmission } from '../core/responses/submit';
import { isSubmissionTokenExpired, mintSubmissionToken } from '../core/responses/submission-tokens';
import { withTransaction } from '../db';
import type { Db } from '../db/connection';
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

/** What every page handler shares: its dependencies and the page renderer. */
interface PagesContext {
  db: Db;
  logger: Logger;
  deps: PagesDeps;
  pages: PageRenderer;
}

/**
 * The router of the pages (mounted before authentication: no key). Reads forms through the core, submits
 * through `checkSubmission` and `storeSubmission` in a transaction it opens (with the one-time token),
 * records link events through `recordEmailEvents`; answers HTML on every path.
 */
export function pagesRouter(deps: PagesDeps): Router {
  const c: PagesContext = { db: deps.db, logger: deps.logger, deps, pages: createPageRenderer() };
  const r = Router();
  r.get('/f/:form_id', formPage(c));
  r.post('/f/:form_id', parseFormBody(c), submitForm(c));
  r.get('/f/:form_id/thanks', thanksPage(c));
  r.get('/e/:token.gif', openPixel(c));
  r.use(routingErrors(c));
  return r;
}

function message(c: PagesContext, res: Response, status: number, lang: string, heading: string, text: string): void {
  c.pages.send(res, status, 'message', { lang, heading, text });
}

function notFoundPage(c: PagesContext, req: Request, res: Response): void {
  const lang = frameLanguage(req.get('Accept-Language'));
  const s = pageStrings(lang);
  message(c, res, 404, lang, s.notFoundTitle, s.notFoundText);
}

/** Known failures as pages; anything else is logged and shown as a generic 500 page. */
function failure(c: PagesContext, req: Request, res: Response, lang: string, err: unknown): void {
  const s = pageStrings(lang);
  if (err instanceof AppError) {
    for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
    if (err.code === 'link_expired') return message(c, res, 410, lang, s.linkExpiredTitle, s.linkExpiredText);
    if (err.code === 'link_already_used') return message(c, res, 409, lang, s.linkUsedTitle, s.linkUsedText);
    if (err.code === 'validation_error') return message(c, res, 400, lang, s.linkInvalidTitle, s.linkInvalidText);
    if (err.code === 'rate_limit_exceeded') return message(c, res, 429, lang, s.tooManyTitle, s.tooManyText);
  }
  // The database cannot be reached (docs/operations.md, "Outages"): a 503 page the visitor may retry.
  if (isDatabaseUnavailable(err)) {
    res.setHeader('Retry-After', String(DB_RETRY_AFTER_SECONDS));
    return message(c, res, 503, lang, s.errorTitle, s.errorText);
  }
  (req.log ?? c.logger).error({ err, request_id: req.requestId }, 'page failed');
  return message(c, res, 500, lang, s.errorTitle, s.errorText);
}

/**
 * The link's claims and the form they name, or throws (400 tampered/foreign, 410 expired). Form ids are
 * unique in practice, but imports may reuse one in two workspaces: the token's workspace then decides.
 */
async function linkForm(db: Db, pf: PublicForm, formId: string, token: string): Promise<{ claims: LinkClaims; pf: PublicForm }> {
  const claims = await verifyLinkToken(db, token, formId);
  if (claims.workspaceId === pf.workspaceId) return { claims, pf };
  const own = await formDefinitionFromDb(db, claims.workspaceId, formId);
  if (!own) throw errors.invalid('query', 't', '`t` is an email link for another form.');
  const { workspaceId, name, ...form } = own;
  return { claims, pf: { workspaceId, name, form } };
}

/**
 * The form a page GET names and the language to show it in (`?lang=`, then `Accept-Language`, then the
 * form's default: docs/collecting.md, "Languages"), or undefined for an unknown form (the caller answers 404).
 */
async function pageForm(c: PagesContext, req: Request<{ form_id: string }>): Promise<{ pf: PublicForm; lang: string; hints: LanguageHints } | undefined> {
  const pf = await loadPublicForm(c.db, req.params.form_id);
  if (!pf) return undefined;
  const hints: LanguageHints = { query: first(req.query.lang), acceptLanguage: req.get('Accept-Language') };
  return { pf, lang: chooseLanguage(pf.form, hints), hints };
}

/** `GET /f/{form_id}`: the form page; with `?t=` it records the link's `click` first. */
function formPage(c: PagesContext): RequestHandler<{ form_id: string }> {
  const { db } = c;
  return async (req, res) => {
    const formId = req.params.form_id;
    const page = await pageForm(c, req);
    if (!page) return notFoundPage(c, req, res);
    let { pf, lang } = page;
    const t = first(req.query.t);
    try {
      if (t !== undefined) {
        const link = await linkForm(db, pf, formId, t);
        const { claims } = link;
        pf = link.pf;
        lang = chooseLanguage(pf.form, page.hints);
        const workspaceId = pf.workspaceId;
        await withTransaction(db, (trx) =>
          recordEmailEvents(trx, workspaceId, [
            { emailId: claims.emailId, email: claims.email, type: 'click', rowId: claims.rowId, formId, flowId: claims.flowId },
          ]),
        );
        // A link that has taken its responses shows why instead of a form that could not be sent.
        if (await isLinkUsedUp(db, claims, t)) throw errors.linkAlreadyUsed(claims.maxResponses);
      }
    } catch (err) {
      return failure(c, req, res, lang, err);
    }
    const view = buildFormView({ form: pf.form, formName: pf.name, lang, body: {}, errors: new Map(), token: mintSubmissionToken(), linkToken: t });
    c.pages.send(res, 200, 'form', view);
  };
}

/** The form body parser, only here (the API takes JSON only); a body it cannot read is a page, not JSON. */
function parseFormBody(c: PagesContext): RequestHandler {
  const urlencoded = express.urlencoded({ extended: false, limit: '200kb', parameterLimit: 2000 });
  return (req, res, next) =>
    urlencoded(req, res, (err?: unknown) => {
      if (!err) return next();
      const lang = frameLanguage(req.get('Accept-Language'));
      const s = pageStrings(lang);
      if ((err as { status?: number }).status === 413) return message(c, res, 413, lang, s.tooLargeTitle, s.tooLargeText);
      return message(c, res, 400, lang, s.errorTitle, s.unreadableText);
    });
}

/** `POST /f/{form_id}`: checks and stores a submission; 303 to the thank-you page, or the form again (400) with messages. */
function submitForm(c: PagesContext): RequestHandler<{ form_id: string }> {
  const { db, deps } = c;
  return async (req, res) => {
    const formId = String(req.params.form_id);
    const found = await loadPublicForm(db, formId);
    if (!found) return notFoundPage(c, req, res);
    let pf: PublicForm = found;
    const body = (req.is('application/x-www-form-urlencoded') && req.body && typeof req.body === 'object' ? req.body : {}) as PostedBody;
    const hints = { query: postedValue(body, '_lang') || first(req.query.lang), acceptLanguage: req.get('Accept-Language') };
    let lang = chooseLanguage(pf.form, hints);
    const linkToken = postedValue(body, '_t') || undefined;
    let claims: LinkClaims | undefined;
    try {
      await consumeSubmissionBudget(deps.limiter, res, req.ip, formId, deps.submissionsPerMinute);
      if (linkToken !== undefined) {
        const link = await linkForm(db, pf, formId, linkToken);
        ({ claims, pf } = link);
        lang = chooseLanguage(pf.form, hints);
      }
    } catch (err) {
      return failure(c, req, res, lang, err);
    }
    const thanks = thanksPath(formId, lang);
    // A filled honeypot is a bot: store nothing, but answer as if all went well.
    if (postedValue(body, HONEYPOT_FIELD) !== '') return res.redirect(303, thanks);

    const sentToken = postedValue(body, '_token');
    const token = sentToken !== '' && sentToken.length <= MAX_TOKEN_LENGTH ? sentToken : undefined;
    if (token !== undefined && (await isSubmissionTokenClaimed(db, pf.workspaceId, token))) return res.redirect(303, thanks);

    const answers = answersFromBody(pf.form, body);
    const rerender = (status: number, errors: Map<string, string>, formErrors: string[], freshToken = token === undefined) => {
      const view = buildFormView({ form: pf.form, formName: pf.name, lang, body, errors, formErrors, token: freshToken ? mintSubmissionToken() : token!, linkToken });
      c.pages.send(res, status, 'form', view);
    };
    // Claimed tokens are kept only a day past their expiry (docs/operations.md), so an expired page
    // cannot be sent: it comes back with the answers kept and a fresh token.
    if (token !== undefined && isSubmissionTokenExpired(token)) return rerender(400, new Map(), [pageStrings(lang).pageExpired], true);

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
      // The form, language and answers checked above are the ones stored: nothing is loaded or validated again.
      const submission = checkSubmission(
        { ...pf.form, name: pf.name },
        { formId, answers, ...(claims ? { respondentEmail: claims.email, emailId: claims.emailId, rowId: claims.rowId } : {}) },
        { language: lang, checked },
      );
      const workspaceId = pf.workspaceId;
      // One transaction: the response, its event, the one-time token and the link's use commit together or not
      // at all. The token is claimed first: a double submit of one page is a duplicate (thank-you page), not a
      // second use of the link.
      await withTransaction(db, async (trx) => {
        const record = await storeSubmission(trx, workspaceId, submission);
        if (token !== undefined) await claimSubmissionToken(trx, workspaceId, formId, token, record.id);
        if (claims && linkToken !== undefined) await claimLinkUse(trx, claims, linkToken);
      });
    } catch (err) {
      if (err instanceof DuplicateSubmission) return res.redirect(303, thanks);
      if (err instanceof AppError && err.code === 'validation_error') {
        return rerender(400, new Map(), (err.details ?? []).map((d) => d.message));
      }
      return failure(c, req, res, lang, err);
    }
    return res.redirect(303, thanks);
  };
}

/** `GET /f/{form_id}/thanks`: the thank-you page in the form's language. */
function thanksPage(c: PagesContext): RequestHandler<{ form_id: string }> {
  return async (req, res) => {
    const page = await pageForm(c, req);
    if (!page) return notFoundPage(c, req, res);
    const { pf, lang } = page;
    c.pages.send(res, 200, 'thanks', { lang, s: pageStrings(lang), formName: pf.name });
  };
}

/** `GET /e/{token}.gif`: the open-tracking pixel; records an `open` for a valid token, always serves the GIF. */
function openPixel(c: PagesContext): RequestHandler<{ token: string }> {
  const { db } = c;
  return async (req, res) => {
    try {
      const claims = await readLinkToken(db, req.params.token);
      if (claims) {
        await withTransaction(db, (trx) =>
          recordEmailEvents(trx, claims.workspaceId, [
            { emailId: claims.emailId, email: claims.email, type: 'open', rowId: claims.rowId, formId: claims.formId, flowId: claims.flowId },
          ]),
        );
      }
    } catch (err) {
      // The pixel is always served: a mail client shows a broken image otherwise.
      (req.log ?? c.logger).error({ err, request_id: req.requestId }, 'open event not recorded');
    }
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('image/gif').send(PIXEL);
  };
}

/**
 * Errors raised while routing a page (a path whose percent-encoding does not decode, `/f/%FF`): pages
 * answer HTML, and the pixel is served whatever happens.
 */
function routingErrors(c: PagesContext): (err: unknown, req: Request, res: Response, next: (err?: unknown) => void) => void {
  return (err, req, res, next) => {
    if (req.path.startsWith('/e/')) {
      res.setHeader('Cache-Control', 'no-store');
      return res.type('image/gif').send(PIXEL);
    }
    if (!req.path.startsWith('/f/')) return next(err);
    const lang = frameLanguage(req.get('Accept-Language'));
    const s = pageStrings(lang);
    if (err instanceof URIError) return message(c, res, 400, lang, s.errorTitle, s.unreadableText);
    return failure(c, req, res, lang, err);
  };
}
