/**
 * The query of a Style B request as Style A parameters (docs/migrating-between-styles.md, "Translating a
 * request"): `page`/`limit` → `limit` plus a cursor walk, `sort` in snake_case with one field,
 * `start_date`/`end_date` → `created_after`/`created_before` with the same bounds (src/core/query/dates.ts),
 * `filter` → typed parameters (translate-filter.ts). Parameters Style B would refuse are reported as such.
 */
import { inDateRange, parseDateValue } from '../query/dates';
import { snakeCase } from '../query/fields';
import { eventFilterParams, responseFilterParams } from './translate-filter';
import { REFUSED_BY_B, Untranslatable, type CursorWalk, type QueryPairs } from './translate-types';

export type QueryRule = 'responses-list' | 'responses-export' | 'response-item' | 'tables' | 'rows' | 'fields' | 'events' | 'audit' | 'none';

/** The most `links.next` a translated walk may ask a client to follow before its page. */
export const MAX_FOLLOW = 1000;

/** The audit list's exact-match parameters, the same in both styles (docs/security.md, "The audit trail"). */
const AUDIT_EXACT = ['actor', 'action', 'target_type', 'target_id'];
const RESPONSE_FILTERS = ['sort', 'q', 'filter', 'start_date', 'end_date', 'form_id', 'include_table_data', 'include_actionlist_data'];
const ALLOWED: Record<QueryRule, readonly string[]> = {
  'responses-list': ['page', 'limit', ...RESPONSE_FILTERS],
  'responses-export': ['format', ...RESPONSE_FILTERS],
  'response-item': ['include_table_data', 'include_actionlist_data'],
  tables: [],
  rows: ['page', 'limit', 'filter', 'sort', 'start_date', 'end_date', 'include_metadata'],
  fields: [],
  events: ['page', 'limit', 'sort', 'filter', 'start_date', 'end_date', 'type', 'email_id', 'recipient'],
  audit: ['page', 'limit', 'filter', 'start_date', 'end_date', ...AUDIT_EXACT],
  none: [],
};
const SORTABLE: Partial<Record<QueryRule, readonly string[]>> = {
  'responses-list': ['created_at', 'score', 'sentiment', 'relevance'],
  'responses-export': ['created_at', 'score', 'sentiment', 'relevance'],
  events: ['created_at'],
};

type Query = Map<string, string[]>;

const refused = (part: string, why: string) => new Untranslatable(part, `${REFUSED_BY_B}: ${why}`);

function one(query: Query, name: string): string | undefined {
  const values = query.get(name);
  if (values === undefined) return undefined;
  if (values.length > 1) throw refused(`query.${name}`, `\`${name}\` may be given once.`);
  return values[0];
}

function intParam(query: Query, name: string, max: number, fallback: number): number {
  const raw = one(query, name);
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1 || n > max)
    throw refused(`query.${name}`, `\`${name}\` must be an integer from 1 to ${max}; got "${raw}".`);
  return n;
}

/** Style B `page`/`limit` as a Style A `limit` and the walk that reads the same items. */
function pageWalk(query: Query): { limit: number; walk: CursorWalk } {
  const page = intParam(query, 'page', Number.MAX_SAFE_INTEGER, 1);
  const bLimit = intParam(query, 'limit', 1000, 50);
  let limit = Math.min(bLimit, 100);
  while (bLimit % limit !== 0) limit--;
  const perPage = bLimit / limit;
  const follow = (page - 1) * perPage;
  if (follow + perPage - 1 > MAX_FOLLOW) {
    throw new Untranslatable(
      'query.page',
      `a page too deep for a cursor walk: page ${page} of ${bLimit} needs following links.next ${follow} times (more than ${MAX_FOLLOW}); walk from the first page and keep the cursor instead.`,
    );
  }
  const reads = perPage === 1 ? 'read that page' : `read ${perPage} pages in a row (following links.next between them)`;
  const note =
    follow === 0
      ? `Send the request and ${reads}.`
      : `Send the request, follow links.next ${follow === 1 ? 'once' : `${follow} times`}, then ${reads}; stop early when links.next is null.`;
  return { limit, walk: { limit, follow_next: follow, read_pages: perPage, note } };
}

/** Style B `sort` as Style A's one field, snake_case where the fields are known (responses, events). */
function sortParam(raw: string, sortable: readonly string[] | undefined): string | undefined {
  if (raw.trim() === '') return undefined;
  const parts = raw.split(',').map((p) => p.trim());
  const fields = parts.map((part) => {
    const [name = '', dir = 'asc', ...rest] = part.split(':').map((s) => s.trim());
    const field = sortable ? (sortable.includes(name) ? name : snakeCase(name)) : name;
    if (field === '' || (sortable && !sortable.includes(field))) throw refused('query.sort', `\`sort\` field "${name}" is not sortable.`);
    if (rest.length > 0 || !['asc', 'desc'].includes(dir.toLowerCase())) throw refused('query.sort', `\`sort\` direction must be asc or desc; got "${part}".`);
    return `${field}:${dir.toLowerCase()}`;
  });
  if (fields.length > 1) {
    throw new Untranslatable('query.sort', `several sort fields: Style A sorts by one field (then the id); "${raw}" has ${fields.length}.`);
  }
  return fields[0];
}

const FRACTION = /^(.*T\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/;

/** The instant one microsecond after a date-time (Style B `end_date` includes it, Style A `created_before` excludes it); undefined past the last instant. */
function microAfter(value: string): string | undefined {
  const m = FRACTION.exec(value)!;
  const digits = m[2] ?? '';
  if (/[1-9]/.test(digits.slice(6))) {
    throw new Untranslatable(
      'query.end_date',
      `an end_date finer than a microsecond: the database rounds "${value}" to a microsecond, and a created_before cannot name the same bound.`,
    );
  }
  const micros = BigInt(Date.parse(`${m[1]}${m[3]}`)) * 1000n + BigInt(digits.slice(0, 6).padEnd(6, '0')) + 1n;
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  if (!inDateRange(Number(ms))) return undefined;
  const sub = String(micros - ms * 1000n).padStart(3, '0');
  return new Date(Number(ms)).toISOString().replace(/Z$/, `${sub}Z`);
}

/** Style B dates as Style A bounds over the same instants (src/core/query/dates.ts). */
function datePairs(query: Query, notes: string[]): QueryPairs {
  const out: QueryPairs = [];
  const start = one(query, 'start_date');
  const end = one(query, 'end_date');
  if (start !== undefined) {
    parseDateValue(start, 'start_date');
    out.push(['created_after', start]);
  }
  if (end === undefined) return out;
  const p = parseDateValue(end, 'end_date');
  let before: string | undefined;
  if (p.kind === 'date') {
    const t = new Date(`${p.date}T00:00:00Z`);
    t.setUTCDate(t.getUTCDate() + 1);
    before = inDateRange(t.getTime()) ? t.toISOString().slice(0, 10) : undefined;
  } else before = microAfter(p.value);
  if (before === undefined) notes.push(`end_date=${end} ends after every instant the service stores: no created_before needed.`);
  else out.push(['created_before', before]);
  return out;
}

function boolParam(query: Query, name: string): boolean | undefined {
  const raw = one(query, name);
  if (raw === undefined) return undefined;
  if (raw !== 'true' && raw !== 'false') throw refused(`query.${name}`, `\`${name}\` must be true or false; got "${raw}".`);
  return raw === 'true';
}

/** Longest `q` both styles take (src/core/responses/search.ts, SEARCH_MAX_LENGTH). */
const SEARCH_MAX_LENGTH = 500;

/**
 * The search `q`, the same in both styles (docs/api-rules.md, "Searching text answers"): passed on unchanged.
 * Refused as Style B refuses it when longer than 500 characters, and a sort by relevance without it. (A `q` without
 * a word is refused by the service, which parses it; the translator does not.)
 */
function searchPairs(query: Query, sorted: string | undefined): QueryPairs {
  const q = one(query, 'q');
  if (q !== undefined && [...q].length > SEARCH_MAX_LENGTH) throw refused('query.q', `\`q\` is at most ${SEARCH_MAX_LENGTH} characters.`);
  if (q === undefined && sorted?.startsWith('relevance:')) {
    throw refused('query.sort', '`sort` by relevance orders the matches of a search: give `q`, or sort by created_at or score.');
  }
  return q === undefined ? [] : [['q', q]];
}

/** The parameters every responses rule shares: filters, search, dates, sort, includes. */
function responsePairs(query: Query, rule: QueryRule, notes: string[]): QueryPairs {
  const out: QueryPairs = [];
  const sort = one(query, 'sort');
  // A bare `relevance` is `relevance:desc` in both styles (the best match first).
  const sorted = sort === undefined ? undefined : sortParam(sort.trim() === 'relevance' ? 'relevance:desc' : sort, SORTABLE[rule]);
  if (sorted !== undefined) out.push(['sort', sorted]);
  out.push(...searchPairs(query, sorted));
  const formId = one(query, 'form_id');
  if (formId === '') throw refused('query.form_id', 'Empty value found for query parameter `form_id`.');
  if (formId !== undefined) out.push(['form_id', formId]);
  const filter = one(query, 'filter');
  if (filter !== undefined) out.push(...responseFilterParams(filter, formId !== undefined));
  out.push(...datePairs(query, notes));
  if (boolParam(query, 'include_table_data') !== undefined) out.push(['include_table_data', one(query, 'include_table_data')!]);
  if (boolParam(query, 'include_actionlist_data') === true) {
    throw new Untranslatable('query.include_actionlist_data', 'action-list data: Style A answers carry no actionlist_data.');
  }
  return out;
}

/** Email events: Style B's narrowing parameters and `filter` conditions as Style A's `type`, `email_id`, `recipient`. */
function eventPairs(query: Query, notes: string[]): QueryPairs {
  const pairs: QueryPairs = [];
  for (const name of ['type', 'email_id', 'recipient']) {
    const v = one(query, name);
    if (v !== undefined) pairs.push([name, v]);
  }
  const filter = one(query, 'filter');
  if (filter !== undefined) pairs.push(...eventFilterParams(filter));
  const out: QueryPairs = [];
  for (const [name, value] of pairs) {
    const seen = out.find(([n]) => n === name);
    if (seen && seen[1] !== value) {
      throw new Untranslatable(
        'query.filter',
        `an email event filter condition other than event_type = v or email_id = v: Style A takes one \`${name}\`; "${seen[1]}" and "${value}" both asked.`,
      );
    }
    if (!seen) out.push([name, value]);
  }
  const sort = one(query, 'sort');
  const sorted = sort === undefined ? undefined : sortParam(sort, SORTABLE.events);
  return [...out, ...(sorted ? [['sort', sorted] as [string, string]] : []), ...datePairs(query, notes)];
}

/** The audit list: the exact parameters pass, dates become Style A's; Style A has no `filter` on it. */
function auditPairs(query: Query, notes: string[]): QueryPairs {
  if (query.has('filter')) {
    throw new Untranslatable(
      'query.filter',
      'a filter on the audit list: Style A takes actor, action, target_type and target_id as exact parameters; send those instead.',
    );
  }
  const pairs: QueryPairs = [];
  for (const name of AUDIT_EXACT) {
    const v = one(query, name);
    if (v !== undefined) pairs.push([name, v]);
  }
  return [...pairs, ...datePairs(query, notes)];
}

/** Rows: `filter` passes through (Style A rows take the same language); no dates in Style A. */
function rowPairs(query: Query, notes: string[]): QueryPairs {
  const out: QueryPairs = [];
  for (const name of ['start_date', 'end_date']) {
    if (query.has(name)) throw new Untranslatable(`query.${name}`, 'dates on rows: Style A row lists have no date parameters.');
  }
  const sort = one(query, 'sort');
  const sorted = sort === undefined ? undefined : sortParam(sort, undefined);
  if (sorted !== undefined) out.push(['sort', sorted]);
  const filter = one(query, 'filter');
  if (filter !== undefined) out.push(['filter', filter]);
  if (boolParam(query, 'include_metadata') !== undefined) notes.push('Style A rows always carry created_at and updated_at: include_metadata is dropped.');
  notes.push('Style A rows have their columns at the top level (Style B: in data).');
  return out;
}

/**
 * The Style A query (and walk) of a Style B query under one rule.
 * @throws Untranslatable for a part with no equivalent or one Style B refuses; AppError validation_error from the date checks.
 */
export function translateQuery(rule: QueryRule, query: Query, notes: string[]): { pairs: QueryPairs; walk?: CursorWalk } {
  for (const name of query.keys()) {
    if (!ALLOWED[rule].includes(name)) throw refused(`query.${name}`, `unknown query parameter \`${name}\` for this operation.`);
  }
  const paged = ALLOWED[rule].includes('page') ? pageWalk(query) : undefined;
  const head: QueryPairs = paged ? [['limit', String(paged.limit)]] : [];
  switch (rule) {
    case 'responses-list':
    case 'responses-export':
    case 'response-item': {
      const pairs = [
        ...head,
        ...(rule === 'responses-export' && query.has('format') ? [['format', one(query, 'format')!] as [string, string]] : []),
        ...responsePairs(query, rule, notes),
      ];
      return { pairs, ...(paged ? { walk: paged.walk } : {}) };
    }
    case 'rows':
      return { pairs: [...head, ...rowPairs(query, notes)], walk: paged!.walk };
    case 'events':
      return { pairs: [...head, ...eventPairs(query, notes)], walk: paged!.walk };
    case 'tables': {
      const note = 'Send the request and follow links.next until it is null: together the pages hold every table, ordered by name.';
      return {
        pairs: [
          ['sort', 'name:asc'],
          ['limit', '100'],
        ],
        walk: { limit: 100, follow_next: 0, read_pages: null, note },
      };
    }
    case 'audit':
      return { pairs: [...head, ...auditPairs(query, notes)], walk: paged!.walk };
    case 'fields':
      notes.push('Read the field names from data.fields[].name (Style B lists row_id first).');
      return { pairs: [['include', 'fields']] };
    default:
      return { pairs: [] };
  }
}
