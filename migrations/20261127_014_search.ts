/**
 * Full-text search over text answers (docs/api-rules.md, "Searching text answers"; src/core/responses/search.ts).
 *
 * - `response_search_config(language)`: the text search configuration of a response's language: the stemming
 *   configuration PostgreSQL ships for its ISO 639-1 code (`en` english, `de` german, `fr` french, `es` spanish, …;
 *   a region such as `pt-BR` counts as `pt`), `simple` (lower-cased words, no stemming, no stop words) for any other.
 * - `response_search_text(answers)`: the document searched: the string values of the text answers (`type` "text"),
 *   in answer order, one per line; NULL without any.
 * - `responses.search_vector`: a STORED generated column, `to_tsvector` of the two. The database computes it on
 *   every INSERT and every UPDATE of `language` or `answers`, whoever writes (the submission path, the importer's
 *   COPY, the bench seed): no writer can forget it, and it works the same on PostgreSQL 15 and PGlite.
 * - `responses_search_idx`: a GIN index over it (`search_vector @@ tsquery`).
 *
 * Existing rows: adding a stored generated column rewrites the table once (every row gets its vector) under an
 * ACCESS EXCLUSIVE lock, then the GIN index is built. At 1,000,000 responses that is one set-based pass (minutes,
 * not hours; writes wait meanwhile): run it in a maintenance window (docs/data-model.md, "The search vector").
 * Both functions are IMMUTABLE (a generated column requires it): changing the mapping later needs a new
 * migration that recreates the column.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE OR REPLACE FUNCTION response_search_config(language text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT CASE lower(split_part(replace(coalesce(language, ''), '_', '-'), '-', 1))
    WHEN 'ar' THEN 'pg_catalog.arabic'::regconfig
    WHEN 'hy' THEN 'pg_catalog.armenian'::regconfig
    WHEN 'eu' THEN 'pg_catalog.basque'::regconfig
    WHEN 'ca' THEN 'pg_catalog.catalan'::regconfig
    WHEN 'da' THEN 'pg_catalog.danish'::regconfig
    WHEN 'nl' THEN 'pg_catalog.dutch'::regconfig
    WHEN 'en' THEN 'pg_catalog.english'::regconfig
    WHEN 'fi' THEN 'pg_catalog.finnish'::regconfig
    WHEN 'fr' THEN 'pg_catalog.french'::regconfig
    WHEN 'de' THEN 'pg_catalog.german'::regconfig
    WHEN 'el' THEN 'pg_catalog.greek'::regconfig
    WHEN 'hi' THEN 'pg_catalog.hindi'::regconfig
    WHEN 'hu' THEN 'pg_catalog.hungarian'::regconfig
    WHEN 'id' THEN 'pg_catalog.indonesian'::regconfig
    WHEN 'ga' THEN 'pg_catalog.irish'::regconfig
    WHEN 'it' THEN 'pg_catalog.italian'::regconfig
    WHEN 'lt' THEN 'pg_catalog.lithuanian'::regconfig
    WHEN 'ne' THEN 'pg_catalog.nepali'::regconfig
    WHEN 'no' THEN 'pg_catalog.norwegian'::regconfig
    WHEN 'nb' THEN 'pg_catalog.norwegian'::regconfig
    WHEN 'nn' THEN 'pg_catalog.norwegian'::regconfig
    WHEN 'pt' THEN 'pg_catalog.portuguese'::regconfig
    WHEN 'ro' THEN 'pg_catalog.romanian'::regconfig
    WHEN 'ru' THEN 'pg_catalog.russian'::regconfig
    WHEN 'sr' THEN 'pg_catalog.serbian'::regconfig
    WHEN 'es' THEN 'pg_catalog.spanish'::regconfig
    WHEN 'sv' THEN 'pg_catalog.swedish'::regconfig
    WHEN 'ta' THEN 'pg_catalog.tamil'::regconfig
    WHEN 'tr' THEN 'pg_catalog.turkish'::regconfig
    WHEN 'yi' THEN 'pg_catalog.yiddish'::regconfig
    ELSE 'pg_catalog.simple'::regconfig
  END
$fn$;

CREATE OR REPLACE FUNCTION response_search_text(answers jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT string_agg(a.e ->> 'value', E'\n' ORDER BY a.n)
  FROM jsonb_array_elements(CASE WHEN jsonb_typeof(answers) = 'array' THEN answers ELSE '[]'::jsonb END) WITH ORDINALITY AS a(e, n)
  WHERE a.e ->> 'type' = 'text' AND jsonb_typeof(a.e -> 'value') = 'string'
$fn$;

ALTER TABLE responses ADD COLUMN IF NOT EXISTS search_vector tsvector
  GENERATED ALWAYS AS (to_tsvector(response_search_config(language), coalesce(response_search_text(answers), ''))) STORED;

CREATE INDEX IF NOT EXISTS responses_search_idx ON responses USING gin (search_vector);
`;

const SQL_DOWN = String.raw`
DROP INDEX IF EXISTS responses_search_idx;
ALTER TABLE responses DROP COLUMN IF EXISTS search_vector;
DROP FUNCTION IF EXISTS response_search_text(jsonb);
DROP FUNCTION IF EXISTS response_search_config(text);
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
