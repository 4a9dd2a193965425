"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.pagesRouter = pagesRouter;
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
const node_crypto_1 = require("node:crypto");
const express_1 = __importStar(require("express"));
const errors_1 = require("../core/errors");
const error_handler_1 = require("../platform/error-handler");
const email_events_write_1 = require("../core/email-events/email-events.write");
const public_form_1 = require("../core/forms/public-form");
const links_1 = require("../core/links/links");
const answers_1 = require("../core/responses/answers");
const submit_1 = require("../core/responses/submit");
const rate_limit_1 = require("../platform/rate-limit");
const form_view_1 = require("./form-view");
const i18n_1 = require("./i18n");
const render_1 = require("./render");
const submission_tokens_1 = require("./submission-tokens");
/** A transparent 1×1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const MAX_TOKEN_LENGTH = 128;
const first = (v) => (typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined);
function newSubmissionToken() {
    return (0, node_crypto_1.randomBytes)(18).toString('base64url');
}
function thanksPath(formId, lang) {
    return `/f/${encodeURIComponent(formId)}/thanks?lang=${encodeURIComponent(lang)}`;
}
/** A page-friendly message for an answer problem (the core's messages are written for API clients). */
function pageMessage(p, lang, questionType, sent) {
    const s = (0, i18n_1.pageStrings)(lang);
    if (p.field === 'answers')
        return s.answerRequired;
    if ((questionType === 'number' || questionType === 'nps' || questionType === 'rating') && !/^[-+]?[\d.]+([eE][-+]?\d+)?$/.test(sent.trim())) {
        return s.notANumber;
    }
    return p.message.charAt(0).toUpperCase() + p.message.slice(1) + (p.message.endsWith('.') ? '' : '.');
}
/**
 * The router of the pages (mounted before authentication: no key). Reads forms through the core, submits
 * through `submitResponse`, records link events through `recordEmailEvents`; answers HTML on every path.
 */
function pagesRouter(deps) {
    const { db, logger } = deps;
    const pages = (0, render_1.createPageRenderer)();
    const r = (0, express_1.Router)();
    const message = (res, status, lang, heading, text) => pages.send(res, status, 'message', { lang, heading, text });
    const notFoundPage = (req, res) => {
        const lang = (0, i18n_1.frameLanguage)(req.get('Accept-Language'));
        const s = (0, i18n_1.pageStrings)(lang);
        message(res, 404, lang, s.notFoundTitle, s.notFoundText);
    };
    /** Known failures as pages; anything else is logged and shown as a generic 500 page. */
    const failure = (req, res, lang, err) => {
        const s = (0, i18n_1.pageStrings)(lang);
        if (err instanceof errors_1.AppError) {
            for (const [name, value] of Object.entries(err.headers ?? {}))
                res.setHeader(name, value);
            if (err.code === 'link_expired')
                return message(res, 410, lang, s.linkExpiredTitle, s.linkExpiredText);
            if (err.code === 'validation_error')
                return message(res, 400, lang, s.linkInvalidTitle, s.linkInvalidText);
            if (err.code === 'rate_limit_exceeded')
                return message(res, 429, lang, s.tooManyTitle, s.tooManyText);
        }
        // The database cannot be reached (CONTRACT section 14): a 503 page the visitor may retry.
        if ((0, error_handler_1.isDatabaseUnavailable)(err)) {
            res.setHeader('Retry-After', String(error_handler_1.DB_RETRY_AFTER_SECONDS));
            return message(res, 503, lang, s.errorTitle, s.errorText);
        }
        (req.log ?? logger).error({ err, request_id: req.requestId }, 'page failed');
        return message(res, 500, lang, s.errorTitle, s.errorText);
    };
    /**
     * The link's claims and the form they name, or throws (400 tampered/foreign, 410 expired). Form ids are
     * unique in practice, but imports may reuse one in two workspaces: the token's workspace then decides.
     */
    const linkForm = async (pf, formId, token) => {
        const claims = await (0, links_1.verifyLinkToken)(db, token, formId);
        if (claims.workspaceId === pf.workspaceId)
            return { claims, pf };
        const own = await (0, answers_1.formDefinitionFromDb)(db, claims.workspaceId, formId);
        if (!own)
            throw errors_1.errors.invalid('query', 't', '`t` is an email link for another form.');
        const { workspaceId, name, ...form } = own;
        return { claims, pf: { workspaceId, name, form } };
    };
    r.get('/f/:form_id', async (req, res) => {
        const formId = req.params.form_id;
        let pf = await (0, public_form_1.loadPublicForm)(db, formId);
        if (!pf)
            return notFoundPage(req, res);
        const hints = { query: first(req.query.lang), acceptLanguage: req.get('Accept-Language') };
        let lang = (0, public_form_1.chooseLanguage)(pf.form, hints);
        const t = first(req.query.t);
        try {
            if (t !== undefined) {
                const link = await linkForm(pf, formId, t);
                const { claims } = link;
                pf = link.pf;
                lang = (0, public_form_1.chooseLanguage)(pf.form, hints);
                await (0, email_events_write_1.recordEmailEvents)(db, pf.workspaceId, [
                    { emailId: claims.emailId, email: claims.email, type: 'click', rowId: claims.rowId, formId, flowId: claims.flowId },
                ]);
            }
        }
        catch (err) {
            return failure(req, res, lang, err);
        }
        const view = (0, form_view_1.buildFormView)({ form: pf.form, formName: pf.name, lang, body: {}, errors: new Map(), token: newSubmissionToken(), linkToken: t });
        pages.send(res, 200, 'form', view);
    });
    // The form body parser only here (the API takes JSON only); a body it cannot read is a page, not JSON.
    const urlencoded = express_1.default.urlencoded({ extended: false, limit: '200kb', parameterLimit: 2000 });
    const parseForm = (req, res, next) => urlencoded(req, res, (err) => {
        if (!err)
            return next();
        const lang = (0, i18n_1.frameLanguage)(req.get('Accept-Language'));
        const s = (0, i18n_1.pageStrings)(lang);
        if (err.status === 413)
            return message(res, 413, lang, s.tooLargeTitle, s.tooLargeText);
        return message(res, 400, lang, s.errorTitle, s.unreadableText);
    });
    r.post('/f/:form_id', parseForm, async (req, res) => {
        const formId = String(req.params.form_id);
        const found = await (0, public_form_1.loadPublicForm)(db, formId);
        if (!found)
            return notFoundPage(req, res);
        let pf = found;
        const body = (req.is('application/x-www-form-urlencoded') && req.body && typeof req.body === 'object' ? req.body : {});
        const hints = { query: (0, form_view_1.postedValue)(body, '_lang') || first(req.query.lang), acceptLanguage: req.get('Accept-Language') };
        let lang = (0, public_form_1.chooseLanguage)(pf.form, hints);
        const linkToken = (0, form_view_1.postedValue)(body, '_t') || undefined;
        let claims;
        try {
            await (0, rate_limit_1.consumeSubmissionBudget)(deps.limiter, res, req.ip, formId, deps.submissionsPerMinute);
            if (linkToken !== undefined) {
                const link = await linkForm(pf, formId, linkToken);
                ({ claims, pf } = link);
                lang = (0, public_form_1.chooseLanguage)(pf.form, hints);
            }
        }
        catch (err) {
            return failure(req, res, lang, err);
        }
        const thanks = thanksPath(formId, lang);
        // A filled honeypot is a bot: store nothing, but answer as if all went well.
        if ((0, form_view_1.postedValue)(body, form_view_1.HONEYPOT_FIELD) !== '')
            return res.redirect(303, thanks);
        const sentToken = (0, form_view_1.postedValue)(body, '_token');
        const token = sentToken !== '' && sentToken.length <= MAX_TOKEN_LENGTH ? sentToken : undefined;
        if (token !== undefined && (await (0, submission_tokens_1.isSubmissionTokenClaimed)(db, pf.workspaceId, token)))
            return res.redirect(303, thanks);
        const answers = (0, form_view_1.answersFromBody)(pf.form, body);
        const rerender = (status, errors, formErrors) => {
            const view = (0, form_view_1.buildFormView)({ form: pf.form, formName: pf.name, lang, body, errors, formErrors, token: token ?? newSubmissionToken(), linkToken });
            pages.send(res, status, 'form', view);
        };
        const checked = (0, answers_1.validateAnswers)(pf.form, answers, { language: lang, enforceRequired: true });
        // PostgreSQL cannot store NUL (\u0000): a message beside the answer instead of a failed insert.
        const withNul = answers.filter((a) => JSON.stringify(a.value).includes('\\u0000'));
        if (checked.problems.length > 0 || withNul.length > 0) {
            const errors = new Map(withNul.map((a) => [a.question_id, (0, i18n_1.pageStrings)(lang).cannotStore]));
            const formErrors = [];
            for (const p of checked.problems) {
                const q = p.questionId === undefined ? undefined : pf.form.questions.find((x) => x.id === p.questionId);
                if (!q)
                    formErrors.push(p.message);
                else if (!errors.has(q.id))
                    errors.set(q.id, pageMessage(p, lang, q.type, (0, form_view_1.postedValue)(body, `q.${q.id}`)));
            }
            return rerender(400, errors, formErrors);
        }
        try {
            await (0, submit_1.submitResponse)(db, pf.workspaceId, {
                formId,
                answers,
                language: lang,
                ...(claims ? { respondentEmail: claims.email, emailId: claims.emailId, rowId: claims.rowId } : {}),
            }, { beforeCommit: token === undefined ? undefined : (trx, record) => (0, submission_tokens_1.claimSubmissionToken)(trx, pf.workspaceId, formId, token, record.id) });
        }
        catch (err) {
            if (err instanceof submission_tokens_1.DuplicateSubmission)
                return res.redirect(303, thanks);
            if (err instanceof errors_1.AppError && err.code === 'validation_error') {
                return rerender(400, new Map(), (err.details ?? []).map((d) => d.message));
            }
            return failure(req, res, lang, err);
        }
        return res.redirect(303, thanks);
    });
    r.get('/f/:form_id/thanks', async (req, res) => {
        const formId = req.params.form_id;
        const pf = await (0, public_form_1.loadPublicForm)(db, formId);
        if (!pf)
            return notFoundPage(req, res);
        const lang = (0, public_form_1.chooseLanguage)(pf.form, { query: first(req.query.lang), acceptLanguage: req.get('Accept-Language') });
        pages.send(res, 200, 'thanks', { lang, s: (0, i18n_1.pageStrings)(lang), formName: pf.name });
    });
    r.get('/e/:token.gif', async (req, res) => {
        try {
            const claims = await (0, links_1.readLinkToken)(db, req.params.token);
            if (claims) {
                await (0, email_events_write_1.recordEmailEvents)(db, claims.workspaceId, [
                    { emailId: claims.emailId, email: claims.email, type: 'open', rowId: claims.rowId, formId: claims.formId, flowId: claims.flowId },
                ]);
            }
        }
        catch (err) {
            // The pixel is always served: a mail client shows a broken image otherwise.
            (req.log ?? logger).error({ err, request_id: req.requestId }, 'open event not recorded');
        }
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.type('image/gif').send(PIXEL);
    });
    // Errors raised while routing a page (a path whose percent-encoding does not decode, `/f/%FF`): pages
    // answer HTML, and the pixel is served whatever happens.
    r.use((err, req, res, next) => {
        if (req.path.startsWith('/e/')) {
            res.setHeader('Cache-Control', 'no-store');
            return res.type('image/gif').send(PIXEL);
        }
        if (!req.path.startsWith('/f/'))
            return next(err);
        const lang = (0, i18n_1.frameLanguage)(req.get('Accept-Language'));
        const s = (0, i18n_1.pageStrings)(lang);
        if (err instanceof URIError)
            return message(res, 400, lang, s.errorTitle, s.unreadableText);
        return failure(req, res, lang, err);
    });
    return r;
}
//# sourceMappingURL=pages.router.js.map