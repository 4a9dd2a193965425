/**
 * The request translator (docs/migrating-between-styles.md, "Translating a request"): a Style B request
 * `{method, path, query, headers, body?}` → the Style A request that returns the same data, or the part
 * that has none and why. Pure, no I/O: `POST /api/v1/translate` (src/adapters/translate.routes.ts) and the
 * property test (tests/component/migration/translate.property.test.ts) call it. Which operation maps to
 * which: src/core/migration/operation-map.ts. What never translates, with the reasons:
 * docs/migrating-between-styles.md, "What does not translate".
 */
import { AppError, errors } from '../errors';
import { snakeCase } from '../query/fields';
import { STYLE_B_OPERATIONS, type OperationMapping } from './operation-map';
import { translateQuery, type QueryRule } from './translate-query';
import { responseFilterParams } from './translate-filter';
import { REFUSED_BY_B, Untranslatable, type QueryPairs, type QueryValues, type StyleARequest, type StyleBRequest, type Translation } from './translate-types';

export { REFUSED_BY_B, type StyleBRequest, type Translation } from './translate-types';

interface Matched {
  mapping: OperationMapping;
  /** Path parameters by name, as sent (still percent-encoded). */
  params: Record<string, string>;
}

const compiled = STYLE_B_OPERATIONS.map((mapping) => {
  const names: string[] = [];
  const source = mapping.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { mapping, names, regex: new RegExp(`^${source}/?$`) };
});

function matchOperation(method: string, path: string): Matched {
  const onPath = compiled.filter((c) => c.regex.test(path));
  if (onPath.length === 0) {
    throw new Untranslatable(
      'path',
      `not a Style B operation: no Style B path matches "${path}" (Style B paths: {ws}/responses…, /api/v2/…/responses, {ws}/tables…, {ws}/emails/events).`,
    );
  }
  const hit = onPath.find((c) => c.mapping.method === method);
  if (!hit) {
    throw new Untranslatable('method', `${REFUSED_BY_B}: ${method} is not allowed on ${path}; use ${onPath.map((c) => c.mapping.method).join(', ')}.`);
  }
  const values = hit.regex.exec(path)!.slice(1);
  return { mapping: hit.mapping, params: Object.fromEntries(hit.names.map((n, i) => [n, values[i]!])) };
}

/** The path, its own query string merged into `query` (a full URL counts by its path). */
function splitPath(req: StyleBRequest): { path: string; query: Map<string, string[]> } {
  let url: URL;
  try {
    url = new URL(req.path, 'http://translate.invalid');
  } catch {
    throw new Untranslatable('path', `not a Style B operation: "${req.path}" is not a path or URL.`);
  }
  const query = new Map<string, string[]>();
  // Appended in place: a copy per value would make a repeated parameter quadratic.
  const add = (name: string, value: string) => {
    const seen = query.get(name);
    if (seen) seen.push(value);
    else query.set(name, [value]);
  };
  for (const [name, value] of url.searchParams) add(name, value);
  for (const [name, value] of Object.entries(req.query ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) add(name, String(v));
  }
  return { path: url.pathname, query };
}

/**
 * The headers for Style A: `X-API-Style: A`, the others kept (names as sent) but `X-API-Key`: a secret is
 * never echoed (the client sends its own key with the translated request).
 */
function styleAHeaders(headers: Record<string, string> | undefined, notes: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() === 'x-api-key') {
      notes.push('X-API-Key is left out of the answer: send your key with the Style A request.');
      continue;
    }
    if (name.toLowerCase() !== 'x-api-style') {
      out[name] = String(value);
      continue;
    }
    const style = String(value).trim().toUpperCase();
    if (style === 'A') throw new Untranslatable('headers.X-API-Style', 'already Style A: the request sends X-API-Style: A; nothing to translate.');
    if (style !== 'B') throw new Untranslatable('headers.X-API-Style', `${REFUSED_BY_B}: X-API-Style must be A or B; got "${value}".`);
  }
  out['X-API-Style'] = 'A';
  return out;
}

/** Pairs as query values (a list for a repeated name), in linear time: lists grow in place. */
function asQueryValues(pairs: QueryPairs): QueryValues {
  const lists = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const seen = lists.get(name);
    if (seen) seen.push(value);
    else lists.set(name, [value]);
  }
  const out: QueryValues = {};
  for (const [name, values] of lists) out[name] = values.length === 1 ? values[0]! : values;
  return out;
}

const fill = (template: string, params: Record<string, string>) =>
  template.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === 'datatable_id' ? params.table_id : params[name]) ?? '');

/** Per operation: the query rules (translate-query.ts) and the body rewrite; absent: no query, body as is. */
const RULES: Record<string, { query?: QueryRule; body?: (body: unknown, notes: string[]) => unknown }> = {
  listResponses: { query: 'responses-list' },
  listResponsesV2: { query: 'responses-list' },
  exportResponses: { query: 'responses-export' },
  getResponse: { query: 'response-item' },
  createResponse: { body: responseBody },
  createResponseDeletion: { body: deletionBody },
  listTablesB: { query: 'tables' },
  listTableRowsB: { query: 'rows' },
  listTableEntriesB: { query: 'rows' },
  listTableFieldsB: { query: 'fields' },
  upsertTableEntryB: {},
  bulkUpsertTableEntriesB: { body: bulkBody },
  getTableEntryB: {},
  updateTableEntryB: {},
  deleteTableEntryB: {},
  listEmailEventsB: { query: 'events' },
  listAuditEvents: { query: 'audit' },
};

/** POST {ws}/responses: answers name their question `question_id` in Style A, the time is `created_at`. */
function responseBody(body: unknown, notes: string[]): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (name === 'answers' && Array.isArray(value)) {
      out.answers = value.map((a: unknown) => {
        if (a === null || typeof a !== 'object' || !('id' in a)) return a;
        const { id, ...rest } = a as Record<string, unknown>;
        return { question_id: id, ...rest };
      });
    } else out[name === 'createdAt' ? 'created_at' : snakeCase(name)] = value;
  }
  notes.push("Style A answers name each answer's question `question_id` (Style B: `id`); the answer is the Style A response shape.");
  return out;
}

const DELETION_NAMES_A: Readonly<Record<string, string>> = { formId: 'form_id', startDate: 'created_after', endDate: 'created_before', dryRun: 'dry_run' };

/** The answer parameters the Style A bulk delete body takes as arrays of the same name (`answer`, `answer_in`, …). */
const ANSWER_BODY_NAMES = new Set([
  'answer',
  'answer_ne',
  'answer_in',
  'answer_contains',
  'answer_present',
  'answer_gt',
  'answer_gte',
  'answer_lt',
  'answer_lte',
]);

const noBodyField = (name: string, why: string) =>
  new Untranslatable('body.filter', `a bulk delete filter condition without a Style A body field: ${why} (the list's \`${name}\`).`);

/**
 * A bulk delete's Style B `filter` as Style A body fields, ANDed with the fields `out` holds already: the expression
 * is translated as the list's (responseFilterParams, so it is checked as Style B checks it), then each parameter goes
 * to its body field: `form_id` → `form_id`, `id = v` and `id in [..]` → `ids` (lists intersected), `score = v` →
 * `score_gte` and `score_lte` (a narrowed range), `answer…` → the array of the same name.
 * @throws Untranslatable naming `body.filter` for a filter Style B refuses, and for a condition the Style A body has
 *   no field for (`score in`, `!=` and `~` on response fields, `email_id`, `row_id`, `respondent_email`, `sentiment`).
 */
function deletionFilterFields(expression: string, out: Record<string, unknown>): void {
  let pairs;
  try {
    pairs = responseFilterParams(expression, typeof out.form_id === 'string');
  } catch (e) {
    throw e instanceof Untranslatable ? new Untranslatable('body.filter', e.reason) : e;
  }
  // The body's `ids`, each `id = v` and the one `id_in` list (responseFilterParams intersects `in` lists) are ANDed.
  const idLists: string[][] = Array.isArray(out.ids) ? [out.ids as string[]] : [];
  const idIn: string[] = [];
  for (const [name, value] of pairs) {
    if (name === 'form_id') out.form_id = value;
    else if (name === 'form_id_in') {
      // Only a repetition of the body's own form translates: Style A's body names one form.
      if (value !== out.form_id) throw noBodyField(name, `a second form (\`form_id = ${value}\`) besides \`formId\``);
    } else if (name === 'id') idLists.push([value]);
    else if (name === 'id_in') idIn.push(value);
    else if (name === 'score') {
      const n = Number(value);
      out.score_gte = Math.max(n, typeof out.score_gte === 'number' ? out.score_gte : -Infinity);
      out.score_lte = Math.min(n, typeof out.score_lte === 'number' ? out.score_lte : Infinity);
    } else if (ANSWER_BODY_NAMES.has(name)) out[name] = [...((out[name] as string[] | undefined) ?? []), value];
    else throw noBodyField(name, `Style A's body takes \`form_id\`, \`ids\`, \`score_gte\`/\`score_lte\` and \`answer…\` only`);
  }
  if (idIn.length > 0) idLists.push(idIn);
  if (idLists.length > 0) {
    const ids = idLists.reduce((kept, list) => kept.filter((v) => new Set(list).has(v)));
    if (ids.length === 0) throw noBodyField('id_in', 'id conditions no response meets together (an empty `ids` is no filter in Style A)');
    out.ids = [...new Set(ids)];
  }
}

/**
 * POST {ws}/response-deletions: the Style B body's names in Style A, and its `filter` as Style A body fields
 * (deletionFilterFields).
 */
function deletionBody(body: unknown, notes: string[]): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  const { filter, ...rest } = body as Record<string, unknown>;
  for (const [name, value] of Object.entries(rest)) {
    if (name === 'endDate' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
      out.created_before = new Date(Date.parse(`${value}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    } else out[DELETION_NAMES_A[name] ?? name] = value;
  }
  notes.push("Style A names the bulk delete's fields in snake_case; an `endDate` date becomes the next day in `created_before` (exclusive).");
  if (typeof filter !== 'string') {
    if (filter !== undefined) out.filter = filter; // not text: Style A refuses it, as Style B does
  } else if (filter.trim() !== '') {
    deletionFilterFields(filter, out);
    notes.push("The bulk delete's `filter` becomes Style A body fields: `form_id`, `ids`, `score_gte`/`score_lte` and `answer…` as the list's parameters.");
  }
  return out;
}

/** POST …/bulk-entries: Style A takes up to 100 rows in one request; splitting would lose all-or-nothing. */
function bulkBody(body: unknown, notes: string[]): unknown {
  const data = (body as { data?: unknown } | null)?.data;
  if (Array.isArray(data) && data.length > 100) {
    throw new Untranslatable(
      'body.data',
      `bulk upserts over 100 rows: Style A takes up to 100 rows per request, and splitting ${data.length} rows into several requests loses Style B's all-or-nothing.`,
    );
  }
  notes.push('Style A upserts up to 100 rows per request, all in one transaction.');
  return body;
}

function translateOrThrow(req: StyleBRequest): Translation {
  const method = String(req.method ?? '').toUpperCase();
  const { path, query } = splitPath(req);
  const { mapping, params } = matchOperation(method, path);
  const notes: string[] = [];
  const headers = styleAHeaders(req.headers, notes);
  const rule = RULES[mapping.operation] ?? {};
  const q = translateQuery(rule.query ?? 'none', query, notes);
  const request: StyleARequest = { method: mapping.equivalent.method, path: fill(mapping.equivalent.path, params), query: asQueryValues(q.pairs), headers };
  if (req.body !== undefined) request.body = rule.body ? rule.body(req.body, notes) : req.body;
  return { ok: true, operation: mapping.operation, equivalent: mapping.equivalent.operation, request, ...(q.walk ? { walk: q.walk } : {}), notes };
}

/**
 * The most a request to translate may hold (docs/migrating-between-styles.md, "Limits"): its `path`, query
 * names and values and header names and values together, in UTF-8 bytes (16 times the 16 KiB a real request
 * line and headers may have, so every request Style B takes fits), and the values of its `filter`
 * (a condition counts one, an `in [..]` list one per value).
 */
export const TRANSLATE_LIMITS = { bytes: 256 * 1024, filterValues: 10_000 } as const;

/** The values a filter expression holds: its commas outside double quotes, plus one (linear scan). */
function filterValueCount(expression: string): number {
  let count = 1;
  let quoted = false;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) count++;
  }
  return count;
}

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * Checks a request to translate against TRANSLATE_LIMITS, before any translation work.
 * @throws AppError validation_error (400, location body) naming `path`, `query` or `headers` (the largest
 *   part) when the request is over the byte limit, `query.filter` when a filter holds too many values.
 */
export function checkTranslateInput(req: StyleBRequest): void {
  const sizes = {
    path: utf8Bytes(String(req.path ?? '')),
    query: Object.entries(req.query ?? {}).reduce(
      (n, [k, v]) => n + utf8Bytes(k) + (Array.isArray(v) ? v : [v]).reduce((m, x) => m + utf8Bytes(String(x)), 0),
      0,
    ),
    headers: Object.entries(req.headers ?? {}).reduce((n, [k, v]) => n + utf8Bytes(k) + utf8Bytes(String(v)), 0),
  };
  const total = sizes.path + sizes.query + sizes.headers;
  if (total > TRANSLATE_LIMITS.bytes) {
    const largest = (Object.keys(sizes) as Array<keyof typeof sizes>).reduce((a, b) => (sizes[b] > sizes[a] ? b : a));
    throw errors.invalid(
      'body',
      largest,
      `The request to translate holds ${total} bytes in path, query and headers; at most ${TRANSLATE_LIMITS.bytes} (a real request line and headers hold at most 16384).`,
    );
  }
  const filters: string[] = [];
  try {
    filters.push(...new URL(String(req.path ?? ''), 'http://translate.invalid').searchParams.getAll('filter'));
  } catch {
    // A path that is not one: the translation refuses it (422 naming `path`).
  }
  const given = req.query?.filter;
  if (given !== undefined) filters.push(...(Array.isArray(given) ? given : [given]));
  for (const f of filters) {
    const n = filterValueCount(String(f));
    if (n > TRANSLATE_LIMITS.filterValues) {
      throw errors.invalid(
        'body',
        'query.filter',
        `\`filter\` holds ${n} values (each condition one, an in list one per value); at most ${TRANSLATE_LIMITS.filterValues}.`,
      );
    }
  }
}

/**
 * Translates one Style B request.
 * @returns `{ok: true, request, walk?, notes}` with the Style A request, or `{ok: false, part, reason}` naming the
 *   part with no Style A equivalent (`path`, `method`, `query.<name>`, `headers.X-API-Style`, `body.data`); a
 *   request Style B itself refuses (400) is `ok: false` with a reason opening with REFUSED_BY_B.
 */
export function translateStyleB(req: StyleBRequest): Translation {
  try {
    return translateOrThrow(req);
  } catch (e) {
    if (e instanceof Untranslatable) return { ok: false, part: e.part, reason: e.reason };
    // The service's own checks (dates) throw validation errors: Style B answers those 400.
    if (e instanceof AppError && e.code === 'validation_error') {
      const field = e.details?.[0]?.field ?? 'query';
      return { ok: false, part: `query.${field}`, reason: `${REFUSED_BY_B}: ${e.message}` };
    }
    throw e;
  }
}
