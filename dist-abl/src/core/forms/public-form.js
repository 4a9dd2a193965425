"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.loadPublicForm = loadPublicForm;
exports.chooseLanguage = chooseLanguage;
const errors_1 = require("../errors");
const answers_1 = require("../responses/answers");
/**
 * Loads a form by id for the public ways (pages, public JSON). Form ids are random and unique in
 * practice; should one exist in two workspaces, the first workspace in id order wins.
 * @returns undefined when no workspace has the form.
 */
async function loadPublicForm(db, formId) {
    // No stored id holds NUL, and PostgreSQL refuses it in a query: such a path names no form.
    if (formId.includes('\u0000'))
        return undefined;
    const [found] = await (0, answers_1.formDefinitionsFromDb)(db, [formId]);
    if (!found)
        return undefined;
    const { workspaceId, name, ...form } = found;
    return { workspaceId, name, form };
}
/** `de-CH;q=0.8, en` → tags in preference order (q 0 dropped; equal q keep their order). */
function parseAcceptLanguage(header) {
    return header
        .split(',')
        .map((part, i) => {
        const [tag = '', ...params] = part.trim().split(';');
        const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)).find(Boolean);
        return { tag: tag.trim(), q: q ? Number(q[1]) : 1, i };
    })
        .filter((t) => t.tag !== '' && Number.isFinite(t.q) && t.q > 0)
        .sort((a, b) => b.q - a.q || a.i - b.i)
        .map((t) => t.tag);
}
/**
 * The language of a response or page (CONTRACT section 11): `explicit` (body `language`), else
 * `query` (`?lang=`) when the form knows it, else the best `Accept-Language` match among the form's
 * languages (exact tag, then the primary subtag: `de-CH` matches `de`; `*` matches the default), else
 * the form's default language. Matching ignores case; the form's own spelling is returned.
 * @throws AppError validation_error naming `language` (body) when `explicit` is not a form language.
 */
function chooseLanguage(form, hints) {
    const known = (tag) => form.languages.find((l) => l.toLowerCase() === tag.toLowerCase());
    if (hints.explicit !== undefined) {
        const lang = known(hints.explicit);
        if (!lang) {
            throw errors_1.errors.invalid('body', 'language', `\`language\` must be one of the form's languages (${form.languages.join(', ')}); got "${hints.explicit}".`);
        }
        return lang;
    }
    if (hints.query !== undefined) {
        const lang = known(hints.query);
        if (lang)
            return lang;
    }
    for (const tag of parseAcceptLanguage(hints.acceptLanguage ?? '')) {
        if (tag === '*')
            return form.defaultLanguage;
        const exact = known(tag);
        if (exact)
            return exact;
        const primary = tag.split('-')[0].toLowerCase();
        const loose = form.languages.find((l) => l.split('-')[0].toLowerCase() === primary);
        if (loose)
            return loose;
    }
    return form.defaultLanguage;
}
//# sourceMappingURL=public-form.js.map