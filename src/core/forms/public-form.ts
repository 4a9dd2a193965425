/**
 * Forms as the public ways in see them (docs/collecting.md, "Public JSON"): found by id alone (no key names a
 * workspace), and the language a submission or page is given in.
 */
import type { DbHandle } from '../../db';
import { errors } from '../errors';
import { formDefinitionsFromDb, type FormDefinition } from './form-model';

export interface PublicForm {
  workspaceId: string;
  name: string;
  /** The definition plus `languages`: the default language first, then the translations' sorted. */
  form: FormDefinition & { languages: string[] };
}

/**
 * Loads a form by id for the public ways (pages, public JSON). Form ids are random and unique in
 * practice; should one exist in two workspaces, the first workspace in id order wins.
 * @returns undefined when no workspace has the form.
 */
export async function loadPublicForm(db: DbHandle, formId: string): Promise<PublicForm | undefined> {
  // No stored id holds NUL, and PostgreSQL refuses it in a query: such a path names no form.
  if (formId.includes('\u0000')) return undefined;
  const [found] = await formDefinitionsFromDb(db, [formId]);
  if (!found) return undefined;
  const { workspaceId, name, ...form } = found;
  return { workspaceId, name, form };
}

export interface LanguageHints {
  /** `language` of a JSON body: must be one of the form's languages (else 400 naming `language`). */
  explicit?: string | undefined;
  /** `?lang=` of a page: ignored when the form does not know it. */
  query?: string | undefined;
  /** The `Accept-Language` header. */
  acceptLanguage?: string | undefined;
}

/** `de-CH;q=0.8, en` → tags in preference order (q 0 dropped; equal q keep their order). */
function parseAcceptLanguage(header: string): string[] {
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
 * The language of a response or page (docs/collecting.md, "Languages"): `explicit` (body `language`), else
 * `query` (`?lang=`) when the form knows it, else the best `Accept-Language` match among the form's
 * languages (exact tag, then the primary subtag: `de-CH` matches `de`; `*` matches the default), else
 * the form's default language. Matching ignores case; the form's own spelling is returned.
 * @throws AppError validation_error naming `language` (body) when `explicit` is not a form language.
 */
export function chooseLanguage(form: { defaultLanguage: string; languages: readonly string[] }, hints: LanguageHints): string {
  const known = (tag: string) => form.languages.find((l) => l.toLowerCase() === tag.toLowerCase());
  if (hints.explicit !== undefined) {
    const lang = known(hints.explicit);
    if (!lang) {
      throw errors.invalid('body', 'language', `\`language\` must be one of the form's languages (${form.languages.join(', ')}); got "${hints.explicit}".`);
    }
    return lang;
  }
  if (hints.query !== undefined) {
    const lang = known(hints.query);
    if (lang) return lang;
  }
  for (const tag of parseAcceptLanguage(hints.acceptLanguage ?? '')) {
    if (tag === '*') return form.defaultLanguage;
    const exact = known(tag);
    if (exact) return exact;
    const primary = tag.split('-')[0]!.toLowerCase();
    const loose = form.languages.find((l) => l.split('-')[0]!.toLowerCase() === primary);
    if (loose) return loose;
  }
  return form.defaultLanguage;
}
