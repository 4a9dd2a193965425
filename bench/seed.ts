/**
 * Benchmark data: a fresh database `fs_bench_<random>` on DATABASE_URL's server, migrated, with one
 * workspace, 5 forms (imported through the real importer) and N responses written by a few
 * `INSERT … SELECT … FROM generate_series` statements (the statement-level triggers keep
 * response_counts right), then VACUUM (ANALYZE) of every table. Prints progress to stderr.
 *
 *   node dist/bench/seed.js [--responses N] [--database-url URL]
 *
 * Secondary indexes of `responses` are dropped before the bulk insert and rebuilt from their own
 * definitions (pg_indexes) afterwards: building an index once is several times faster than
 * maintaining six of them row by row.
 */
import { randomBytes } from 'node:crypto';
import { Command } from 'commander';
import knex from 'knex';
import { createApiKey } from '../src/core/api-keys/create-api-key';
import type { FixtureForm } from '../src/core/import/fixture-schema';
import { importFixture } from '../src/core/import/importer';
import { textSentiment } from '../src/core/responses/sentiment';
import { createDb, migrateLatest, type Db } from '../src/db/connection';

export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface SeedOptions {
  responses: number;
  /** Server URL (any database on it); the bench database is created next to it. */
  serverUrl?: string;
  log?: (line: string) => void;
}

export interface SeedResult {
  databaseUrl: string;
  databaseName: string;
  workspaceId: string;
  formIds: string[];
  apiKey: string;
  responses: number;
  seconds: number;
}

/** Share of responses per form (sums to 1): a realistic skew, one big form and a long tail. */
export const FORM_SHARES = [0.4, 0.25, 0.15, 0.12, 0.08];
export const FORM_NAMES = ['Relationship NPS', 'Onboarding NPS', 'Support CSAT', 'Checkout NPS', 'Churn survey'];
export const PLAN_OPTIONS = [
  { id: 'opt_free', value: 'Free' },
  { id: 'opt_basic', value: 'Basic' },
  { id: 'opt_pro', value: 'Pro' },
  { id: 'opt_enterprise', value: 'Enterprise' },
];
export const Q_SCORE_TITLE = 'How likely are you to recommend us to a friend or colleague?';
export const Q_PLAN_TITLE = 'Which plan are you on?';
export const Q_COMMENT_TITLE = 'What is the main reason for your score?';
export const COMMENTS = [
  'Great product, the reporting saves me hours every week.',
  'Support answered quickly and solved my problem.',
  'Too expensive for what we use.',
  'The mobile app is slow.',
  'Easy to set up, the integrations work well.',
  'Missing an export to our BI tool.',
  'Billing was confusing this month.',
  'Love the new dashboard.',
];

/** Share of seeded responses that carry a text answer (`q_comment`; issue 29 item 5: 40 %). */
export const TEXT_SHARE = 0.4;
/**
 * The parts a seeded text answer is made of, one of each (12 × 16 × 16 × 6 = 18,432 different texts): realistic
 * feedback with varied words, so a search, its stems and its ranks meet a spread of documents, not 8 repeated ones.
 */
export const COMMENT_PARTS = {
  openers: [
    'Honestly, ',
    'Overall ',
    'To be fair, ',
    'In short, ',
    'Lately ',
    'This quarter ',
    'For our team ',
    'As an admin I think ',
    'Since the last update ',
    'Most days ',
    'Frankly, ',
    'Our managers say ',
  ],
  subjects: [
    'the pricing',
    'the support team',
    'the mobile app',
    'the dashboard',
    'the reporting',
    'the onboarding',
    'the CSV export',
    'the search',
    'the integrations',
    'billing',
    'the API',
    'the new editor',
    'the notifications',
    'the invoice page',
    'the login',
    'the help center',
  ],
  verdicts: [
    'is too expensive for what we use',
    'answered quickly and solved my problem',
    'is slow to load on older phones',
    'saves me hours every week',
    'was confusing this month',
    'works well with our CRM',
    'keeps crashing after the update',
    'is easy to set up',
    'lacks a proper export to our BI tool',
    'feels much faster than before',
    'needs better documentation',
    'made our renewal decision easy',
    'costs more than the competitors charge',
    'is reliable and friendly',
    'takes too many clicks',
    'has improved a lot since spring',
  ],
  tails: ['.', ', please fix it.', ' and we would pay more for it.', ', thanks!', ' compared to other tools.', ' most of the time.'],
} as const;

/** Every text COMMENT_PARTS makes (opener, subject, verdict, tail), in a fixed order: a seeded text answer is one at random. */
export const COMPOSED_COMMENTS: readonly string[] = COMMENT_PARTS.openers.flatMap((o) =>
  COMMENT_PARTS.subjects.flatMap((s) => COMMENT_PARTS.verdicts.flatMap((v) => COMMENT_PARTS.tails.map((t) => `${o}${s} ${v}${t}`))),
);

/**
 * VACUUM of every table with dead rows (pg_stat_user_tables `n_dead_tup`), as autovacuum would do on a server between
 * two load runs; this PostgreSQL may run with autovacuum off (the upsert runs of bench/run.ts and bench/floor-cpu.ts).
 */
export async function vacuumDeadRows(db: Db): Promise<void> {
  const { rows } = (await db.raw(`SELECT format('%I.%I', schemaname, relname) AS t FROM pg_stat_user_tables WHERE n_dead_tup > 0 ORDER BY 1`)) as {
    rows: Array<{ t: string }>;
  };
  for (const r of rows) await db.raw(`VACUUM ${r.t}`);
}

/** A database URL for `database` on the same server as `serverUrl`. */
export function withDatabase(serverUrl: string, database: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

const defaultLog = (line: string) => process.stderr.write(`[seed] ${line}\n`);

/** Creates, migrates and fills a fresh benchmark database. */
export async function seed(opts: SeedOptions): Promise<SeedResult> {
  const log = opts.log ?? defaultLog;
  const started = Date.now();
  const serverUrl = opts.serverUrl ?? DEFAULT_SERVER_URL;
  const { databaseName, databaseUrl } = await createBenchDatabase(serverUrl);
  log(`created and migrated database ${databaseName}`);

  const db = createDb({ databaseUrl, dataDir: '.data', poolMax: 4 });
  try {
    const { workspaceId, formIds } = await seedForms(db);
    const apiKey = await createApiKey(db, {
      name: 'bench',
      workspaceIds: [workspaceId],
      rateLimitPerMinute: 10_000_000,
    });
    await insertResponses(db, workspaceId, formIds, opts.responses, log);
    return {
      databaseUrl,
      databaseName,
      workspaceId,
      formIds,
      apiKey: apiKey.secret,
      responses: opts.responses,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await db.destroy();
  }
}

/**
 * Creates an empty database `fs_bench_<10 hex>` on the server of `serverUrl` and applies every
 * migration. Drop it with dropBenchDatabase.
 * @returns its name and its URL (serverUrl with the database swapped)
 * @throws the PostgreSQL error (e.g. no CREATEDB privilege) or a migration's error; a database whose
 * migration failed is dropped before the error is rethrown
 */
export async function createBenchDatabase(serverUrl: string): Promise<{ databaseName: string; databaseUrl: string }> {
  const databaseName = `fs_bench_${randomBytes(5).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: { connectionString: serverUrl }, pool: { min: 0, max: 1 } });
  try {
    await admin.raw('CREATE DATABASE ??', [databaseName]);
  } finally {
    await admin.destroy();
  }
  const databaseUrl = withDatabase(serverUrl, databaseName);
  const db = createDb({ databaseUrl, dataDir: '.data', poolMax: 1 });
  try {
    await migrateLatest(db);
  } catch (e) {
    await db.destroy();
    await dropBenchDatabase(serverUrl, databaseName);
    throw e;
  }
  await db.destroy();
  return { databaseName, databaseUrl };
}

/** Drops a benchmark database (only `fs_bench_*` names). */
export async function dropBenchDatabase(serverUrl: string, databaseName: string): Promise<void> {
  if (!/^fs_bench_[0-9a-f]+$/.test(databaseName)) throw new Error(`refusing to drop ${databaseName}`);
  const admin = knex({ client: 'pg', connection: { connectionString: serverUrl }, pool: { min: 0, max: 1 } });
  try {
    await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [databaseName]);
  } finally {
    await admin.destroy();
  }
}

/**
 * The benchmark's forms as fixture documents (docs/import.md, "The fixture document"): FORM_NAMES, each with an NPS score
 * question `q_score`, a single_choice `q_plan` over PLAN_OPTIONS and a text `q_comment`; created a
 * day apart, starting 400 days ago.
 */
export function benchForms(workspaceId: string, formIds: string[]): FixtureForm[] {
  return formIds.map((id, i) => ({
    id,
    workspace_id: workspaceId,
    name: FORM_NAMES[i % FORM_NAMES.length]!,
    default_language: 'en',
    created_at: new Date(Date.now() - 400 * 86_400_000 + i * 86_400_000).toISOString(),
    questions: [
      { id: 'q_score', type: 'nps', title: Q_SCORE_TITLE, required: true },
      { id: 'q_plan', type: 'single_choice', title: Q_PLAN_TITLE, options: PLAN_OPTIONS },
      { id: 'q_comment', type: 'text', title: Q_COMMENT_TITLE },
    ],
  }));
}

async function seedForms(db: Db): Promise<{ workspaceId: string; formIds: string[] }> {
  const suffix = randomBytes(4).toString('hex');
  const workspaceId = `ws_bench${suffix}`;
  const formIds = FORM_NAMES.map((_, i) => `frm_bench${i}${suffix}`);
  await importFixture(db, {
    workspaces: [{ id: workspaceId, name: 'Benchmark workspace', link: `bench-${suffix}` }],
    forms: benchForms(workspaceId, formIds),
  });
  return { workspaceId, formIds };
}

/**
 * The bulk insert. Each row: a form picked by FORM_SHARES, an NPS-like score 0..10 (skewed high),
 * created_at spread over the last 365 days with millisecond precision, answers rendered as the
 * importer stores them ([{question_id, type, title, value}]), a text answer on TEXT_SHARE of them (one of
 * COMPOSED_COMMENTS, with its `sentiment`; its search vector is generated by the database) and the overall sentiment
 * columns (not pending), an e-mail link on about 1 in 5.
 */
const INSERT_SQL = String.raw`
INSERT INTO responses (workspace_id, id, form_id, score, version, language, answers, respondent_email, email_id, created_at,
                       sentiment_score, sentiment_label, sentiment_pending)
SELECT :ws, r.id, r.form_id, r.score, 1, 'en',
       jsonb_build_array(
         jsonb_build_object('question_id', 'q_score', 'type', 'nps', 'title', :qScore::text, 'value', r.score),
         jsonb_build_object('question_id', 'q_plan', 'type', 'single_choice', 'title', :qPlan::text,
                            'value', (:plans::jsonb) -> r.plan)
       ) || CASE WHEN r.u3 < :textShare
                 THEN jsonb_build_array(jsonb_build_object('question_id', 'q_comment', 'type', 'text',
                                        'title', :qComment::text, 'value', (:comments::text[])[1 + r.c],
                                        'sentiment', (:sentiments::jsonb) -> r.c))
                 ELSE '[]'::jsonb END,
       CASE WHEN r.email THEN 'person' || r.i || '@example.com' END,
       CASE WHEN r.email THEN 'em_' || substr(md5('em' || r.i || :salt::text), 1, 16) END,
       r.created_at,
       CASE WHEN r.u3 < :textShare THEN ((:sentiments::jsonb) -> r.c ->> 'score')::double precision END,
       CASE WHEN r.u3 < :textShare THEN (:sentiments::jsonb) -> r.c ->> 'label' END,
       false
  FROM (
    SELECT g AS i,
           'rsp_' || substr(md5(g || :salt::text), 1, 16) AS id,
           (:forms::text[])[CASE WHEN u1 < :c1 THEN 1 WHEN u1 < :c2 THEN 2 WHEN u1 < :c3 THEN 3 WHEN u1 < :c4 THEN 4 ELSE 5 END] AS form_id,
           least(10, floor(11 * power(u2, 0.55)))::double precision AS score,
           floor(u6 * 4)::int AS plan,
           u3, floor(u4 * :commentCount)::int AS c,
           u5 < 0.2 AS email,
           date_trunc('milliseconds', now() - random() * interval '365 days') AS created_at
      FROM (SELECT g, random() AS u1, random() AS u2, random() AS u3, random() AS u4, random() AS u5, random() AS u6
              FROM generate_series(:from::int, :to::int) AS g) s
  ) r`;

async function insertResponses(db: Db, ws: string, formIds: string[], n: number, log: (l: string) => void): Promise<void> {
  const cumulative = FORM_SHARES.map((_, i) => FORM_SHARES.slice(0, i + 1).reduce((a, b) => a + b, 0));
  const salt = randomBytes(4).toString('hex');
  const params = {
    ws,
    qScore: Q_SCORE_TITLE,
    qPlan: Q_PLAN_TITLE,
    qComment: Q_COMMENT_TITLE,
    plans: JSON.stringify(PLAN_OPTIONS),
    textShare: TEXT_SHARE,
    comments: [...COMPOSED_COMMENTS],
    commentCount: COMPOSED_COMMENTS.length,
    // Each text's sentiment, computed by the library as a write would (src/core/responses/sentiment.ts), so the
    // seeded responses are not pending and the worker's backfill has nothing to do during the bench.
    sentiments: JSON.stringify(COMPOSED_COMMENTS.map((c) => textSentiment(c, 'en'))),
    forms: formIds,
    c1: cumulative[0]!,
    c2: cumulative[1]!,
    c3: cumulative[2]!,
    c4: cumulative[3]!,
    salt,
  };
  // One connection for the whole load, so the session settings apply.
  await db.transaction(async (trx) => {
    await trx.raw('SET LOCAL synchronous_commit = off');
    await trx.raw("SET LOCAL maintenance_work_mem = '256MB'");
    await trx.raw('SET LOCAL max_parallel_maintenance_workers = 2');
    const indexes = (
      await trx.raw<{ rows: Array<{ indexname: string; indexdef: string }> }>(
        `SELECT i.indexname, i.indexdef FROM pg_indexes i
          WHERE i.schemaname = current_schema() AND i.tablename = 'responses'
            AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
      )
    ).rows;
    for (const ix of indexes) await trx.raw('DROP INDEX ??', [ix.indexname]);
    log(`dropped ${indexes.length} secondary indexes for the load`);

    const chunk = 200_000;
    let t = Date.now();
    for (let from = 1; from <= n; from += chunk) {
      const to = Math.min(n, from + chunk - 1);
      await trx.raw(INSERT_SQL, { ...params, from, to });
      log(`inserted ${to.toLocaleString('en-US')} / ${n.toLocaleString('en-US')} responses (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    }
    t = Date.now();
    for (const ix of indexes) {
      await trx.raw(ix.indexdef);
      log(`rebuilt ${ix.indexname} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    }
  });
  // Every table, not only responses: each INSERT's statement-level triggers rewrote the rollup rows it touched, leaving
  // about four dead versions per live row of answer_rollups, keyword_rollups and keyword_rollups_monthly that every
  // analytics read then stepped over. A server with autovacuum on removes them soon after such a load; this one may
  // run with it off, so the bench vacuums as autovacuum would have.
  await db.raw('VACUUM (ANALYZE)');
  log('vacuumed and analyzed');
}

async function main(): Promise<void> {
  const program = new Command()
    .name('bench-seed')
    .option('--responses <n>', 'responses to insert', (v) => Number.parseInt(v, 10), 1_000_000)
    .option('--database-url <url>', 'server URL (a new database is created on it)', process.env.DATABASE_URL || DEFAULT_SERVER_URL)
    .parse();
  const o = program.opts<{ responses: number; databaseUrl: string }>();
  const r = await seed({ responses: o.responses, serverUrl: o.databaseUrl });
  process.stdout.write(`DATABASE_URL=${r.databaseUrl}\nWORKSPACE_ID=${r.workspaceId}\nFORM_IDS=${r.formIds.join(',')}\nAPI_KEY=${r.apiKey}\n`);
  process.stderr.write(`[seed] done in ${r.seconds.toFixed(1)} s\n`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
