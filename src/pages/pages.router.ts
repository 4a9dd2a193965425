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
import { recordEmailEvents } from '../core/email-events/email-events.store';
import { AppError, errors } from '../core/errors';
import { chooseLanguage, loadPublicForm, type LanguageHints, type PublicForm } from '../core/forms/public-form';
import { isLinkUsedUp } from '../core/links/link-uses.store';
import { readLinkToken } from '../core/links/links';
import type { AnswerProblem } from '../core/responses/answers';
import { checkPublicSubmission, linkTarget, storePublicSubmission, type PublicSubmissionCheck } from '../core/responses/public-submission';
import { DuplicateSubmission, mintSubmissionToken } from '../core/responses/submission-tokens.store';
import { withTransaction } from '../db';
import type { Db } from '../db/connection';
import type { Logger } from '../platform/logger';
import { consumeSubmissionBudget, type RateLimiter } from '../platform/rate-limit';
import { first, pageErrors, type PageErrors } from './errors';
import { answersFromBody, buildFormView, HONEYPOT_FIELD, postedValue, type PostedBody } from './form-view';
import { frameLanguage, pageStrings } from './i18n';
import { createPageRenderer, type PageRenderer } from './render';

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

/** What every page handler shares: its dependencies, the page renderer and the error pages. */
interface PagesContext {
  db: Db;
  logger: Logger;
  deps: PagesDeps;
  pages: PageRenderer;
  errors: PageErrors;
}

/**
 * The router of the pages (mounted before authentication: no key). Reads forms through the core, submits through
 * the public submission use case (`checkPublicSubmission`, then `storePublicSubmission` in a transaction it opens),
 * records link events through `recordEmailEvents`; answers HTML on every path.
 */
export function pagesRouter(deps: PagesDeps): Router {
  const pages = createPageRenderer();
  const c: PagesContext = { db: deps.db, logger: deps.logger, deps, pages, errors: pageErrors(pages, deps.logger, pageStrings, 'page failed') };
  const r = Router();
  r.get('/f/:form_id', formPage(c));
  r.post('/f/:form_id', parseFormBody(c), submitForm(c));
  r.get('/f/:form_id/thanks', thanksPage(c));
  r.get('/e/:token.gif', openPixel(c));
  r.use(routingErrors(c));
  return r;
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
    if (!page) return c.errors.notFound(req, res);
    let { pf, lang } = page;
    const t = first(req.query.t);
    try {
      if (t !== undefined) {
        const link = await linkTarget(db, pf, formId, t, 'query');
        const { claims } = link;
        pf = link.form;
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
      return c.errors.failure(req, res, lang, err);
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
      if ((err as { status?: number }).status === 413) return c.errors.message(res, 413, lang, s.tooLargeTitle, s.tooLargeText);
      return c.errors.message(res, 400, lang, s.errorTitle, s.unreadableText);
    });
}

/** `POST /f/{form_id}`: checks and stores a submission; 303 to the thank-you page, or the form again (400) with messages. */
function submitForm(c: PagesContext): RequestHandler<{ form_id: string }> {
  const { db, deps } = c;
  return async (req, res) => {
    const formId = String(req.params.form_id);
    const found = await loadPublicForm(db, formId);
    if (!found) return c.errors.notFound(req, res);
    const body = (req.is('application/x-www-form-urlencoded') && req.body && typeof req.body === 'object' ? req.body : {}) as PostedBody;
    const hints = { query: postedValue(body, '_lang') || first(req.query.lang), acceptLanguage: req.get('Accept-Language') };
    const linkToken = postedValue(body, '_t') || undefined;
    const sentToken = postedValue(body, '_token');
    const token = sentToken !== '' && sentToken.length <= MAX_TOKEN_LENGTH ? sentToken : undefined;
    let check: PublicSubmissionCheck;
    try {
      await consumeSubmissionBudget(deps.limiter, res, req.ip, formId, deps.submissionsPerMinute);
      check = await checkPublicSubmission(db, found, {
        formId,
        hints,
        linkToken,
        onceToken: token,
        answers: (form) => answersFromBody(form, body),
        // A filled honeypot is a bot: store nothing, but answer as if all went well.
        discard: postedValue(body, HONEYPOT_FIELD) !== '',
      });
    } catch (err) {
      // Before the link is read, the page speaks the language of the form the path names.
      return c.errors.failure(req, res, chooseLanguage(found.form, hints), err);
    }
    const { form: pf, language: lang } = check;
    const thanks = thanksPath(formId, lang);
    const rerender = (status: number, errors: Map<string, string>, formErrors: string[], freshToken = token === undefined) => {
      const view = buildFormView({
        form: pf.form,
        formName: pf.name,
        lang,
        body,
        errors,
        formErrors,
        token: freshToken ? mintSubmissionToken() : token!,
        linkToken,
      });
      c.pages.send(res, status, 'form', view);
    };
    switch (check.kind) {
      case 'discarded':
      case 'duplicate':
        return res.redirect(303, thanks);
      // An expired page comes back with the answers kept and a fresh token.
      case 'expired':
        return rerender(400, new Map(), [pageStrings(lang).pageExpired], true);
      case 'invalid':
        return rerender(400, ...problemMessages(check, lang, body));
    }
    try {
      // One transaction: the response, its event, the one-time token and the link's use commit together or not at all.
      await withTransaction(db, (trx) => storePublicSubmission(trx, check));
    } catch (err) {
      if (err instanceof DuplicateSubmission) return res.redirect(303, thanks);
      if (err instanceof AppError && err.code === 'validation_error') {
        return rerender(
          400,
          new Map(),
          (err.details ?? []).map((d) => d.message),
        );
      }
      return c.errors.failure(req, res, lang, err);
    }
    return res.redirect(303, thanks);
  };
}

/** The messages of an invalid submission: one beside each answer (a NUL first), and those of no question at the top. */
function problemMessages(check: Extract<PublicSubmissionCheck, { kind: 'invalid' }>, lang: string, body: PostedBody): [Map<string, string>, string[]] {
  const beside = new Map<string, string>(check.unstorable.map((id) => [id, pageStrings(lang).cannotStore]));
  const top: string[] = [];
  for (const p of check.problems) {
    const q = p.questionId === undefined ? undefined : check.form.form.questions.find((x) => x.id === p.questionId);
    if (!q) top.push(p.message);
    else if (!beside.has(q.id)) beside.set(q.id, pageMessage(p, lang, q.type, postedValue(body, `q.${q.id}`)));
  }
  return [beside, top];
}

/** `GET /f/{form_id}/thanks`: the thank-you page in the form's language. */
function thanksPage(c: PagesContext): RequestHandler<{ form_id: string }> {
  return async (req, res) => {
    const page = await pageForm(c, req);
    if (!page) return c.errors.notFound(req, res);
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
    if (err instanceof URIError) return c.errors.message(res, 400, lang, s.errorTitle, s.unreadableText);
    return c.errors.failure(req, res, lang, err);
  };
}
