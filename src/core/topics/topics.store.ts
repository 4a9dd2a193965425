/**
 * The store of topics (`topics`, `response_topics`; docs/analytics.md, "Topics"): a workspace's named searches over
 * the text answers of its responses, and the tags they put on the responses that match.
 *
 * A topic's `query` is read as the `q` parameter is (src/core/responses/search.ts: words ANDed, `"a phrase"`, `or`,
 * `-word`), with one addition: `|` between words means `or` (`price | expensive | cost`). A response matches when its
 * search vector (its text answers in its language's configuration) matches the query parsed in that configuration.
 *
 * Tags are written three ways, all `ON CONFLICT DO NOTHING`, so a tag written twice is one tag:
 * - a new response, in the transaction that stores it (tagNewResponses, from storeSubmission and the import);
 * - existing responses, by the tagging job (tagPendingTopicBatch, src/delivery/topic-tagging.ts) when a topic is
 *   created or its query changes: one batch of responses at a time in key order, the last key kept on the topic, so
 *   a restart continues after it;
 * - never by hand. A topic's delete removes its tags, and a response's delete (any way) removes its tags, through
 *   the foreign keys of migration 020 (ON DELETE CASCADE).
 */
import { affectedRows, type DbHandle } from '../../db';
import { errors, AppError } from '../errors';
import { newId } from '../ids';
import { positionOf, type ExtraFields } from '../query/filter';
import type { FilterClause, FilterValue } from '../query/filter-parser';
import type { DateBound } from '../query/dates';
import { joinSql, sql, type Sql } from '../query/sql';
import { prepareSearch, SEARCH_MAX_LENGTH } from '../responses/search';

/** Longest topic name, in characters. */
export const TOPIC_NAME_MAX_LENGTH = 100;
/** Topics a workspace may hold (each new response is matched against every one of them). */
export const TOPICS_PER_WORKSPACE = 100;

/** A topic as the API shows it. */
export interface Topic {
  id: string;
  name: string;
  query: string;
  /** `pending` while the tagging job has existing responses left to look at, `done` once it has seen them all. */
  tagging: 'pending' | 'done';
  createdAt: Date;
  updatedAt: Date;
}

interface TopicRow {
  id: string;
  name: string;
  query: string;
  tagging_pending: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'name', 'query', 'tagging_pending', 'created_at', 'updated_at'];

const toTopic = (r: TopicRow): Topic => ({
  id: r.id,
  name: r.name,
  query: r.query,
  tagging: r.tagging_pending ? 'pending' : 'done',
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * A topic's query in the syntax of `q`: split at every `|` outside double quotes, the parts without a letter or digit
 * dropped (`price |`, `&|!` leave no empty alternative behind), the rest joined by ` or `.
 */
export function topicSearchText(query: string): string {
  const parts: string[] = [];
  let part = '';
  let quoted = false;
  for (const ch of query) {
    if (ch === '"') quoted = !quoted;
    if (ch === '|' && !quoted) {
      parts.push(part);
      part = '';
    } else part += ch;
  }
  parts.push(part);
  return parts
    .map((p) => p.trim())
    .filter((p) => /[\p{L}\p{N}]/u.test(p))
    .join(' or ');
}

/** The condition on `responses` of a topic's query (search.ts; the parse is memoised there). */
async function matchOf(db: DbHandle, query: string): Promise<Sql> {
  return (await prepareSearch(db, topicSearchText(query))).where;
}

/** A topic's checked fields (checkTopicInput). */
export interface TopicInput {
  name?: string | undefined;
  query?: string | undefined;
}

/**
 * Checks a topic's name and query (a create needs both; a PATCH one or both).
 * @throws AppError validation_error naming `name` (empty or blank, longer than TOPIC_NAME_MAX_LENGTH characters,
 *   starting with `top_`, which is how topic ids start) or `query` (blank, longer than SEARCH_MAX_LENGTH characters,
 *   holding no word to search for), location body.
 */
export async function checkTopicInput(db: DbHandle, input: TopicInput, required: boolean): Promise<{ name?: string; query?: string }> {
  const out: { name?: string; query?: string } = {};
  if (input.name !== undefined || required) {
    const name = (input.name ?? '').trim();
    if (name === '') throw errors.invalid('body', 'name', '`name` must not be empty.');
    if ([...name].length > TOPIC_NAME_MAX_LENGTH) {
      throw errors.invalid('body', 'name', `\`name\` is at most ${TOPIC_NAME_MAX_LENGTH} characters; got ${[...name].length}.`);
    }
    if (name.toLowerCase().startsWith('top_')) throw errors.invalid('body', 'name', '`name` must not start with "top_" (topic ids do).');
    out.name = name;
  }
  if (input.query !== undefined || required) {
    const query = (input.query ?? '').trim();
    if (query === '') throw errors.invalid('body', 'query', '`query` must not be empty.');
    if ([...query].length > SEARCH_MAX_LENGTH) {
      throw errors.invalid('body', 'query', `\`query\` is at most ${SEARCH_MAX_LENGTH} characters; got ${[...query].length}.`);
    }
    try {
      await matchOf(db, query);
    } catch (e) {
      if (!(e instanceof AppError) || e.code !== 'validation_error') throw e;
      throw errors.invalid('body', 'query', e.message.replace(/`q`/g, '`query`'));
    }
    out.query = query;
  }
  return out;
}

/** The 409 of a name another topic of the workspace has (in any case). */
async function refuseTakenName(db: DbHandle, workspaceId: string, name: string, exceptId?: string): Promise<void> {
  const q = db('topics').where('workspace_id', workspaceId).whereRaw('lower(name) = lower(?)', [name]);
  if (exceptId !== undefined) q.whereNot('id', exceptId);
  const taken = (await q.first('id')) as { id: string } | undefined;
  if (taken) {
    throw errors.conflict(`Topic "${taken.id}" of this workspace is already named "${name}" (names are unique, ignoring case).`, [
      { location: 'body', field: 'name', message: 'Another topic of the workspace has this name.' },
    ]);
  }
}

/** Every topic of the workspace, by name (ignoring case), then id. */
export async function listTopics(db: DbHandle, workspaceId: string): Promise<Topic[]> {
  const rows = (await db('topics').select(COLUMNS).where('workspace_id', workspaceId).orderByRaw('lower(name), id')) as TopicRow[];
  return rows.map(toTopic);
}

/**
 * One topic of the workspace.
 * @throws AppError resource_not_found when the workspace has no topic `id`.
 */
export async function getTopic(db: DbHandle, workspaceId: string, id: string): Promise<Topic> {
  const row = (await db('topics').select(COLUMNS).where({ workspace_id: workspaceId, id }).first()) as TopicRow | undefined;
  if (!row) throw errors.notFound('Topic', id);
  return toTopic(row);
}

/**
 * Creates a topic (checked by checkTopicInput) in the caller's transaction; the tagging job then tags the existing
 * responses that match (its `tagging` is `pending` until then).
 * @throws AppError conflict (409, detail `name`) when another topic has the name, or the workspace holds
 *   TOPICS_PER_WORKSPACE topics already.
 */
export async function createTopic(db: DbHandle, workspaceId: string, input: { name: string; query: string }): Promise<Topic> {
  await refuseTakenName(db, workspaceId, input.name);
  const count = (await db('topics').where('workspace_id', workspaceId).count({ n: '*' }).first()) as { n: unknown };
  if (Number(count.n) >= TOPICS_PER_WORKSPACE) {
    throw errors.conflict(`The workspace holds ${TOPICS_PER_WORKSPACE} topics, the most it may; delete one first.`);
  }
  const [row] = (await db('topics')
    .insert({ workspace_id: workspaceId, id: newId('topic'), name: input.name, query: input.query })
    .returning(COLUMNS)) as TopicRow[];
  return toTopic(row!);
}

/**
 * Changes a topic's name and/or query in the caller's transaction. A new query (other than the stored one) removes the
 * topic's tags and starts a new pass of the tagging job over the workspace's responses.
 * @throws AppError resource_not_found for an unknown topic; conflict (detail `name`) for a name another topic has.
 */
export async function updateTopic(db: DbHandle, workspaceId: string, id: string, patch: { name?: string; query?: string }): Promise<Topic> {
  const current = (await db('topics').select(['query']).where({ workspace_id: workspaceId, id }).forUpdate().first()) as { query: string } | undefined;
  if (!current) throw errors.notFound('Topic', id);
  if (patch.name !== undefined) await refuseTakenName(db, workspaceId, patch.name, id);
  const retag = patch.query !== undefined && patch.query !== current.query;
  if (retag) await db('response_topics').where({ workspace_id: workspaceId, topic_id: id }).delete();
  const [row] = (await db('topics')
    .where({ workspace_id: workspaceId, id })
    .update({
      ...patch,
      ...(retag ? { tagging_pending: true, tagged_after: null, tagged_count: 0, tagging_version: db.raw('tagging_version + 1') } : {}),
      updated_at: db.fn.now(),
    })
    .returning(COLUMNS)) as TopicRow[];
  return toTopic(row!);
}

/**
 * Deletes a topic; its tags go with it (foreign key, ON DELETE CASCADE).
 * @throws AppError resource_not_found for an unknown topic.
 */
export async function deleteTopic(db: DbHandle, workspaceId: string, id: string): Promise<void> {
  const n = await affectedRows(db('topics').where({ workspace_id: workspaceId, id }).delete());
  if (n === 0) throw errors.notFound('Topic', id);
}

/** `INSERT … SELECT` of the tags of one topic over the responses `scope` narrows (SQL over `responses`). */
async function tagWhere(db: DbHandle, workspaceId: string, topic: { id: string; query: string }, scope: Sql): Promise<Sql> {
  const match = await matchOf(db, topic.query);
  return sql(
    `SELECT workspace_id, ? AS topic_id, id FROM responses WHERE workspace_id = ? AND ${scope.sql} AND ${match.sql}`,
    topic.id,
    workspaceId,
    ...scope.bindings,
    ...match.bindings,
  );
}

/** Runs the tag inserts of several topics in one statement; answers the tags written (new ones only). */
async function insertTags(db: DbHandle, selects: readonly Sql[]): Promise<number> {
  if (selects.length === 0) return 0;
  const all = joinSql(selects, ' UNION ALL ');
  const result = (await db.raw(
    `INSERT INTO response_topics (workspace_id, topic_id, response_id) ${all.sql} ON CONFLICT DO NOTHING RETURNING response_id`,
    all.bindings,
  )) as { rows: unknown[] };
  return result.rows.length;
}

/**
 * Tags new responses of a workspace with every topic they match, in the caller's transaction (the write's: the
 * submission path, the import). One statement for all topics; nothing when the workspace has no topic.
 * @param responseIds the responses just written; undefined: every response of the workspace (the import).
 * @returns the tags written.
 */
export async function tagNewResponses(db: DbHandle, workspaceId: string, responseIds?: readonly string[]): Promise<number> {
  const topics = (await db('topics').select('id', 'query').where('workspace_id', workspaceId)) as Array<{ id: string; query: string }>;
  if (topics.length === 0) return 0;
  const scope = responseIds === undefined ? sql('true') : sql('id = ANY(?)', [...responseIds]);
  // One after the other (`db` is the write's transaction, one connection); each parse is memoised after its first use.
  const selects: Sql[] = [];
  for (const t of topics) selects.push(await tagWhere(db, workspaceId, t, scope));
  return insertTags(db, selects);
}

/** What one batch of the tagging job did. */
export interface TopicTaggingBatch {
  /** The topic the batch worked on; undefined when no topic has a pass to run. */
  topicId?: string;
  workspaceId?: string;
  /** Responses looked at, and tags written. */
  looked: number;
  tagged: number;
  /** True when this batch finished the topic's pass. */
  finished: boolean;
}

/**
 * The tagging job's next batch (src/delivery/topic-tagging.ts), in the caller's transaction: takes the first topic
 * with a pass to run (locked, so a PATCH waits and a second worker takes another: SKIP LOCKED), looks at the next
 * `batchSize` responses of its workspace after the key the pass has reached (primary key order), tags those that
 * match, and stores the new key (and, when fewer than `batchSize` were left, the end of the pass).
 */
export async function tagPendingTopicBatch(db: DbHandle, batchSize: number): Promise<TopicTaggingBatch> {
  const topic = (await db('topics')
    .select('workspace_id', 'id', 'query', 'tagged_after')
    .where('tagging_pending', true)
    .orderBy(['workspace_id', 'id'])
    .forUpdate()
    .skipLocked()
    .first()) as { workspace_id: string; id: string; query: string; tagged_after: string | null } | undefined;
  if (!topic) return { looked: 0, tagged: 0, finished: false };
  const ws = topic.workspace_id;
  const keys = db('responses').select('id').where('workspace_id', ws).orderBy('id').limit(batchSize);
  if (topic.tagged_after !== null) keys.where('id', '>', topic.tagged_after);
  const ids = ((await keys) as Array<{ id: string }>).map((r) => r.id);
  const tagged = ids.length === 0 ? 0 : await insertTags(db, [await tagWhere(db, ws, topic, sql('id = ANY(?)', ids))]);
  const finished = ids.length < batchSize;
  await db('topics')
    .where({ workspace_id: ws, id: topic.id })
    .update({
      tagged_after: ids.length > 0 ? ids[ids.length - 1] : topic.tagged_after,
      tagged_count: db.raw('tagged_count + ?', [tagged]),
      tagging_pending: !finished,
    });
  return { topicId: topic.id, workspaceId: ws, looked: ids.length, tagged, finished };
}

/** The tagging job's state for /metrics: topics with a pass to run, and the tags their passes and the finished ones wrote. */
export async function topicTaggingState(db: DbHandle): Promise<{ pending: number; tagged: number }> {
  const row = (await db('topics')
    .select(db.raw('count(*) FILTER (WHERE tagging_pending) AS pending'), db.raw('coalesce(sum(tagged_count), 0) AS tagged'))
    .first()) as { pending: unknown; tagged: unknown };
  return { pending: Number(row.pending), tagged: Number(row.tagged) };
}

/** Whether a filter field is the topic field (`topic`). */
export const isTopicField = (field: string) => field === 'topic';

/**
 * The filter field `topic` of the responses lists (docs/api-rules.md, "Filtering by topic"), for a FilterContext's
 * `extra`: a response "is" each topic it is tagged with. A value is a topic's id or its name (ignoring case).
 *   topic = v / topic != v   tagged / not tagged with v     topic in [a, b]   tagged with any
 *   topic = null             tagged with no topic           topic != null     tagged with some topic
 * The topics are read only when a list filters by topic (one query for the workspace's topics).
 * @throws AppError validation_error naming the parameter for an unknown topic, `~` or a comparison.
 */
export async function topicFields(db: DbHandle, workspaceId: string, asked: boolean): Promise<ExtraFields> {
  const rows = asked ? ((await db('topics').select('id', 'name').where('workspace_id', workspaceId)) as Array<{ id: string; name: string }>) : [];
  const byKey = new Map<string, string>();
  for (const r of rows) byKey.set(r.name.toLowerCase(), r.id);
  for (const r of rows) byKey.set(r.id, r.id);
  const tagged = (ids: readonly string[] | undefined): Sql =>
    ids === undefined
      ? sql('?? IN (SELECT response_id FROM response_topics WHERE workspace_id = ?)', 'id', workspaceId)
      : sql('?? IN (SELECT response_id FROM response_topics WHERE workspace_id = ? AND topic_id = ANY(?))', 'id', workspaceId, [...ids]);
  const not = (s: Sql) => sql(`NOT (${s.sql})`, ...s.bindings);
  return {
    label: 'topic',
    matches: isTopicField,
    compile(clause: FilterClause, param, location) {
      const bad = (what: string) => errors.invalid(location, param, `\`${param}\`: ${what}${positionOf(clause)}.`);
      const isNull = (v: FilterValue) => !v.quoted && v.text.toLowerCase() === 'null';
      const idOf = (v: FilterValue) => {
        const id = byKey.get(v.text) ?? byKey.get(v.text.toLowerCase());
        if (id === undefined) throw bad(`unknown topic "${v.text}"; give a topic's id or name (GET {ws}/topics lists them)`);
        return id;
      };
      if (clause.op !== '=' && clause.op !== '!=' && clause.op !== 'in') throw bad(`"${clause.op}" does not apply to "topic", which takes =, != and in`);
      if (clause.op === 'in') {
        const ids = clause.values.filter((v) => !isNull(v)).map(idOf);
        const parts = ids.length > 0 ? [tagged(ids)] : [];
        if (clause.values.some(isNull)) parts.push(not(tagged(undefined)));
        const joined = joinSql(parts, ' OR ');
        return sql(`(${joined.sql})`, ...joined.bindings);
      }
      const v = clause.values[0]!;
      const cond = isNull(v) ? not(tagged(undefined)) : tagged([idOf(v)]);
      return clause.op === '=' ? cond : not(cond);
    },
  };
}

/** One topic's responses in a range: the total and the count per period (only periods with responses). */
export interface TopicCounts {
  topicId: string;
  name: string;
  responses: number;
  periods: Array<{ periodStart: string; responses: number }>;
}

/**
 * Responses per topic of a form over time (docs/analytics.md, "Topics over time"): every topic of the workspace, by
 * name, with the form's responses tagged with it in the range, in total and per period (`interval`: UTC days, weeks
 * starting Monday, months, years; ascending; periods without a tagged response are left out). A response with two
 * topics counts for both. One query over the tags, joined to their responses for the form and the time.
 * @param created the range's bounds on `created_at` (half-open, as the other analytics read them).
 */
export async function topicCountsOverTime(
  db: DbHandle,
  workspaceId: string,
  formId: string,
  created: readonly DateBound[],
  interval: 'day' | 'week' | 'month' | 'year',
): Promise<TopicCounts[]> {
  const q = db('response_topics as rt')
    .join('responses as r', (j) => j.on('r.workspace_id', 'rt.workspace_id').andOn('r.id', 'rt.response_id'))
    .where({ 'rt.workspace_id': workspaceId, 'r.form_id': formId })
    .select('rt.topic_id', db.raw(`to_char(date_trunc(?, r.created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS period`, [interval]), db.raw('count(*) AS n'))
    .groupBy('rt.topic_id', 'period')
    .orderBy('period');
  for (const b of created) q.where('r.created_at', b.op, b.value);
  const topics = await listTopics(db, workspaceId);
  const rows = (await q) as Array<{ topic_id: string; period: string; n: unknown }>;
  const byTopic = new Map(topics.map((t): [string, TopicCounts] => [t.id, { topicId: t.id, name: t.name, responses: 0, periods: [] }]));
  for (const r of rows) {
    const c = byTopic.get(r.topic_id);
    if (!c) continue;
    c.responses += Number(r.n);
    c.periods.push({ periodStart: r.period, responses: Number(r.n) });
  }
  return [...byTopic.values()];
}

/** The tagged responses of each topic of the workspace, by name (the dashboard's card). */
export async function topicTotals(db: DbHandle, workspaceId: string, formId: string): Promise<Array<{ name: string; responses: number }>> {
  return (await topicCountsOverTime(db, workspaceId, formId, [], 'year')).map((c) => ({ name: c.name, responses: c.responses }));
}
