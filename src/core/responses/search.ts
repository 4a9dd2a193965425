/**
 * Full-text search over the text answers of responses (docs/api-rules.md, "Searching text answers"): the `q`
 * parameter of the responses lists of both styles, their relevance order and the highlighted excerpt.
 *
 * What is searched: `responses.search_vector` (migration 014), the `to_tsvector` of the response's text answers in
 * the text search configuration of its language (`response_search_config(language)`: english, german, french,
 * spanish, … for the languages PostgreSQL stems, `simple` for the others). The database computes it on every write.
 *
 * How `q` is read: `websearch_to_tsquery`, so the user's syntax is taken as typed and never an error: words are
 * ANDed, `"quoted words"` are a phrase, `or` between words is an alternative, `-word` excludes; any other
 * punctuation is ignored. Since a response is searched in its own language's configuration, `q` is parsed once per
 * configuration (one small query, no table read); the configurations whose parse is the same query share one
 * condition: `(response_search_config(language) = ANY(configs) AND search_vector @@ query) OR …`, each served by the
 * GIN index `responses_search_idx`.
 */
import { createHash } from 'node:crypto';
import type { DbHandle } from '../../db';
import { errors } from '../errors';
import type { ListField } from '../query/fields';
import { joinSql, sql, type Sql } from '../query/sql';

/** Longest `q`, in characters (a longer one is a 400 naming `q`). */
export const SEARCH_MAX_LENGTH = 500;

/** The sort field name of the relevance order (`sort=relevance` in Style A, `sort=relevance:desc` in Style B). */
export const RELEVANCE_FIELD = 'relevance';

/**
 * Every configuration `response_search_config` can answer (migration 014): the stemming configurations for the
 * languages PostgreSQL 15 ships, and `simple`.
 */
// prettier-ignore
export const SEARCH_CONFIGS: readonly string[] = [
  'arabic', 'armenian', 'basque', 'catalan', 'danish', 'dutch', 'english', 'finnish', 'french', 'german', 'greek',
  'hindi', 'hungarian', 'indonesian', 'irish', 'italian', 'lithuanian', 'nepali', 'norwegian', 'portuguese',
  'romanian', 'russian', 'serbian', 'spanish', 'swedish', 'tamil', 'turkish', 'yiddish', 'simple',
];

/** One tsquery (its text form, as PostgreSQL prints it) and the configurations that parse `q` to it. */
interface SearchGroup {
  configs: string[];
  query: string;
}

/** A checked search: the condition a list ANDs in, the rank and the headline of a matching row. */
export interface ResponseSearch {
  /** The raw `q`. */
  text: string;
  /** The condition on `responses` (index-assisted). */
  where: Sql;
  /** The row's query: its language's parse of `q` (a tsquery expression over `language`). */
  rowQuery: Sql;
  /**
   * The `relevance` sort field: `ts_rank` of the row against its query, rounded to 6 decimals as numeric, so a
   * cursor carries it exactly (as the decimal text the database prints) and PostgreSQL and PGlite tie alike.
   */
  relevance: ListField;
  /** A short fingerprint of `q`, for the identity of a list whose cursors carry ranks. */
  fingerprint: string;
}

const CONFIG_OF_ROW = 'response_search_config(??)';

/**
 * The parses of recent `q` values (at most PARSE_MEMO_SIZE, the oldest dropped first): a parse depends only on `q` and
 * the database's built-in configurations, so a repeated search (the next page, another style) skips that round trip.
 */
const parseMemo = new Map<string, SearchGroup[]>();
const PARSE_MEMO_SIZE = 256;

/** `q` parsed in every configuration, grouped (one query; reads no table), or from parseMemo. */
async function parseQuery(db: DbHandle, q: string): Promise<SearchGroup[]> {
  const known = parseMemo.get(q);
  if (known) return known;
  const result = (await db.raw(`SELECT c AS config, websearch_to_tsquery(c::regconfig, ?)::text AS query FROM unnest(string_to_array(?, ',')) AS c`, [
    q,
    SEARCH_CONFIGS.join(','),
  ])) as { rows: Array<{ config: string; query: string }> };
  const groups = groupByQuery(result.rows);
  if (parseMemo.size >= PARSE_MEMO_SIZE) parseMemo.delete(parseMemo.keys().next().value!);
  parseMemo.set(q, groups);
  return groups;
}

/**
 * `response_search_config(language) = ANY('{english,german}'::regconfig[])`; just `true` when `configs` holds every
 * configuration (a word every configuration parses alike): the condition would hold for every row.
 */
function configIn(configs: readonly string[]): Sql {
  if (configs.length === SEARCH_CONFIGS.length) return sql('true');
  return sql(`${CONFIG_OF_ROW} = ANY(string_to_array(?, ',')::regconfig[])`, 'language', configs.join(','));
}

/**
 * Checks `q` and parses it in every configuration (parseQuery).
 * @param db any handle (the list's)
 * @param q the raw parameter value
 * @returns the search to AND into a list
 * @throws AppError validation_error naming `q` when it is longer than SEARCH_MAX_LENGTH characters, or holds no
 *   word in any configuration (empty, only punctuation or query syntax such as `&|!():*`).
 */
export async function prepareSearch(db: DbHandle, q: string): Promise<ResponseSearch> {
  if ([...q].length > SEARCH_MAX_LENGTH) {
    throw errors.invalid('query', 'q', `\`q\` is at most ${SEARCH_MAX_LENGTH} characters; got ${[...q].length}.`);
  }
  const groups = await parseQuery(db, q);
  if (groups.length === 0) {
    throw errors.invalid(
      'query',
      'q',
      '`q` holds no word to search for (only punctuation or query syntax); give words, "a phrase", `or` between words, or -word to exclude one.',
    );
  }
  const where = joinSql(
    groups.map((g) => {
      const inConfigs = configIn(g.configs);
      return sql(`(${inConfigs.sql} AND ?? @@ ?::tsquery)`, ...inConfigs.bindings, 'search_vector', g.query);
    }),
    ' OR ',
  );
  const arms = joinSql(
    groups.map((g) => {
      const inConfigs = configIn(g.configs);
      return sql(`WHEN ${inConfigs.sql} THEN ?::tsquery`, ...inConfigs.bindings, g.query);
    }),
    ' ',
  );
  const rowQuery = sql(`(CASE ${arms.sql} END)`, ...arms.bindings);
  const rank = sql(`round(coalesce(ts_rank(??, ${rowQuery.sql}), 0)::numeric, 6)`, 'search_vector', ...rowQuery.bindings);
  return {
    text: q,
    where: sql(`(${where.sql})`, ...where.bindings),
    rowQuery,
    relevance: { name: RELEVANCE_FIELD, expr: rank, type: 'number', nullable: false },
    fingerprint: createHash('sha256').update(q).digest('base64url').slice(0, 16),
  };
}

/** The distinct non-empty parses of `q`, each with its configurations, in SEARCH_CONFIGS order. */
function groupByQuery(rows: ReadonlyArray<{ config: string; query: string }>): SearchGroup[] {
  const byQuery = new Map<string, string[]>();
  for (const { config, query } of rows) {
    if (query.trim() === '') continue;
    const configs = byQuery.get(query) ?? [];
    configs.push(config);
    byQuery.set(query, configs);
  }
  return [...byQuery].map(([query, configs]) => ({ query, configs }));
}

/** `ts_headline` options: matches in `<mark>`, up to two fragments of at most 25 words (short words kept at their edges). */
const HEADLINE_OPTIONS = 'StartSel=<mark>, StopSel=</mark>, MaxWords=25, MinWords=10, ShortWord=0, MaxFragments=2, FragmentDelimiter=" … "';

/** The column of a row's excerpt in a list query with a search (searchExcerptColumn). */
export const EXCERPT_COLUMN = 'search_excerpt';

/**
 * The highlighted excerpt of a row, a column of the list's own query (EXCERPT_COLUMN): `ts_headline` over its text
 * answers (HTML-escaped first: `&`, `<` and `>` become entities), matches wrapped in `<mark>…</mark>`, up to two
 * fragments joined by " … "; null for a response without text answers. PostgreSQL computes it for the rows the page
 * returns only: above the `LIMIT` of an index-ordered page, after the top-N sort of a relevance page (an expensive
 * output is evaluated after the sort when there is a limit), on the outer rows of a deep page's deferred join.
 */
export function searchExcerptColumn(search: ResponseSearch): Sql {
  const doc = `replace(replace(replace(response_search_text(??), '&', '&amp;'), '<', '&lt;'), '>', '&gt;')`;
  return sql(
    `ts_headline(${CONFIG_OF_ROW}, ${doc}, ${search.rowQuery.sql}, ?) AS ??`,
    'language',
    'answers',
    ...search.rowQuery.bindings,
    HEADLINE_OPTIONS,
    EXCERPT_COLUMN,
  );
}
