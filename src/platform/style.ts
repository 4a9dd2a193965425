/**
 * Style selection (docs/migrating-between-styles.md, "How the style is chosen"). Which paths are style-only and which are
 * shared is the `x-style` of each path in openapi/ (platform/operations.ts). Style-only paths always answer in their style;
 * on the shared paths (`{ws}/responses`, `{ws}/responses/{id}`, v2 `/responses`, `{ws}/forms/{form_id}/dashboard-links…`,
 * `{ws}/audit-events`, `{ws}/events`)
 * the first rule that applies wins: the `X-API-Style` header, then style-only query parameters, then the key's default style.
 */
import { errors } from '../core/errors';
import { RESPONSE_ANSWER_PARAMS, RESPONSE_FILTER_PARAMS, RESPONSE_TOPIC_PARAMS } from '../core/responses/responses.store';
import type { PathStyle } from './operations';

export type Style = 'A' | 'B';

/** Query parameters only one style understands (docs/migrating-between-styles.md, "How the style is chosen", rule 2). */
export const B_ONLY_PARAMS: readonly string[] = ['page', 'filter', 'start_date', 'end_date', 'include_actionlist_data'];
/**
 * Style A: paging, dates, score bounds, the typed response filters (`id`, `id_ne`, `row_id_in`, `score_present`, …) and
 * the filters on answers (`answer`, `answer_in`, `answer_gte`, …) and by topic (`topic`, `topic_ne`, `topic_in`, `topic_present`).
 */
export const A_ONLY_PARAMS: readonly string[] = [
  'cursor',
  'created_after',
  'created_before',
  'score_gte',
  'score_lte',
  ...[...RESPONSE_FILTER_PARAMS, ...RESPONSE_ANSWER_PARAMS, ...RESPONSE_TOPIC_PARAMS].map((p) => p.name),
];

/**
 * The style of an answer written before the key is known (a 401, a page, a probe; docs/migrating-between-styles.md,
 * "How the style is chosen"): the path's own style, else the `X-API-Style` header's when it names one, else A.
 * @param fixed the matched path's `x-style` (undefined for a path the document does not have).
 */
export function styleBeforeKey(fixed: PathStyle | undefined, header: string | undefined): Style {
  if (fixed === 'A' || fixed === 'B') return fixed;
  const h = header?.trim().toUpperCase();
  return h === 'B' ? 'B' : 'A';
}

/** Parses the `X-API-Style` header. @throws AppError validation_error for another value. */
export function headerStyle(header: string | undefined): Style | undefined {
  if (header === undefined || header === '') return undefined;
  const v = header.trim().toUpperCase();
  if (v === 'A' || v === 'B') return v;
  throw errors.invalid('header', 'X-API-Style', `\`X-API-Style\` must be A or B; got "${header}".`);
}

/**
 * Decides the style of a request once its key is known.
 * @param fixed the matched path's `x-style` (openapi/; undefined for a path the document does not have, answered like `none`).
 * @throws AppError validation_error for a bad header or for parameters of both styles in one request.
 */
export function selectStyle(fixed: PathStyle | undefined, header: string | undefined, query: Record<string, unknown>, keyDefault: Style): Style {
  const fromHeader = headerStyle(header);
  if (fixed === 'A' || fixed === 'B') return fixed;
  if (fixed !== 'shared') return fromHeader ?? keyDefault;
  const present = (names: readonly string[]) => names.filter((n) => query[n] !== undefined);
  const b = present(B_ONLY_PARAMS);
  const a = present(A_ONLY_PARAMS);
  if (a.length > 0 && b.length > 0) {
    throw errors.validation(
      [...a, ...b].map((field) => ({ location: 'query' as const, field, message: `\`${field}\` belongs to Style ${a.includes(field) ? 'A' : 'B'}.` })),
      `Parameters of both styles in one request: ${a.join(', ')} (Style A) and ${b.join(', ')} (Style B).`,
    );
  }
  if (fromHeader) {
    // A parameter the chosen style does not know would be silently ignored: reject it instead.
    const foreign = fromHeader === 'A' ? b : a;
    if (foreign.length > 0) {
      const other = fromHeader === 'A' ? 'B' : 'A';
      throw errors.validation(
        foreign.map((field) => ({
          location: 'query' as const,
          field,
          message: `\`${field}\` belongs to Style ${other}; X-API-Style asks for Style ${fromHeader}.`,
        })),
        `Style ${other} parameters in a Style ${fromHeader} request: ${foreign.join(', ')}.`,
      );
    }
    return fromHeader;
  }
  if (b.length > 0) return 'B';
  if (a.length > 0) return 'A';
  return keyDefault;
}
