/**
 * Task tools (docs/agents.md, "Task tools"): what agents ask for more often than a raw endpoint, composed of API calls
 * that run exactly like the operation tools (through `call`: the same scope check, then one in-process HTTP request
 * each, counted against the key's budget and validated). They add no data access of their own.
 * - `summarizeFormFeedback`: a form's counts, its NPS (or average rating) and top answers for a period, from the form
 *   and its per-question analytics (kept per day with the writes, so the cost does not grow with the responses).
 *   Keywords and topics are not computed by this service yet: the summary says so (null).
 * - `findResponsesMentioning`: responses whose text answers contain a phrase (ignoring case), through the responses
 *   list's `answer_contains` filter, one question at a time: the given one, else every text question of the form.
 */
import type { Scope } from '../core/scopes';
import type { DispatchAnswer } from './dispatch';
import type { JsonSchema } from './tools';

/** Calls an operation tool by name with its arguments (scope check included) and gives the HTTP answer. */
export type CallOperation = (name: string, args: Record<string, unknown>) => Promise<DispatchAnswer>;

/** What a task tool gives back: a Style A-like envelope, or the failed call's answer. */
export type TaskOutcome = { ok: true; body: Record<string, unknown> } | { ok: false; answer: DispatchAnswer };

export interface TaskTool {
  name: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  /** Every scope of the operations it calls. */
  scopes: readonly Scope[];
  run(args: Record<string, unknown>, call: CallOperation): Promise<TaskOutcome>;
}

const ID = { type: 'string', minLength: 1, maxLength: 200 };
const INSTANT = {
  type: 'string',
  description: 'A date `YYYY-MM-DD` (00:00:00Z of that day) or an ISO 8601 date-time with offset.',
};

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const asList = (v: unknown): Json[] => (Array.isArray(v) ? v.map(asObject) : []);
const defined = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** The answer's `data`, or the failed answer. */
async function dataOf(call: CallOperation, name: string, args: Json): Promise<{ data: unknown; links: Json } | DispatchAnswer> {
  const answer = await call(name, args);
  if (answer.status >= 400) return answer;
  const body = asObject(answer.body);
  return { data: body.data, links: asObject(body.links) };
}

const failed = (v: unknown): v is DispatchAnswer => typeof (v as DispatchAnswer).status === 'number';

/** The top `n` options of a choice question's analytics, by count. */
function topAnswers(options: Json[], n = 3): Json[] {
  return options
    .filter((o) => Number(o.count) > 0)
    .sort((a, b) => Number(b.count) - Number(a.count))
    .slice(0, n)
    .map((o) => ({ value: o.value, count: o.count, share: o.share }));
}

/** The question analytics item, with what a summary needs of it. */
function questionSummary(q: Json): Json {
  return defined({
    question_id: q.question_id,
    type: q.type,
    title: q.title,
    answered: q.answered,
    skipped: q.skipped,
    nps: q.nps,
    mean: q.mean,
    min: q.min,
    max: q.max,
    top_answers: Array.isArray(q.options) ? topAnswers(asList(q.options)) : undefined,
  });
}

/** The form's headline score: the first NPS question's NPS, else the first rating's average, else null. */
function headline(questions: Json[]): Json | null {
  const nps = questions.find((q) => q.type === 'nps');
  if (nps) return { kind: 'nps', question_id: nps.question_id, value: nps.nps, promoters: nps.promoters, passives: nps.passives, detractors: nps.detractors };
  const rating = questions.find((q) => q.type === 'rating');
  if (rating) return { kind: 'average', question_id: rating.question_id, value: rating.mean, min: rating.min, max: rating.max };
  return null;
}

const summarize: TaskTool = {
  name: 'summarizeFormFeedback',
  description:
    "Summarise a form's feedback for a period: the number of responses, the NPS (or the average rating when the form " +
    'has no NPS question), and per question the answered/skipped counts, NPS or mean, and the top answers of choice ' +
    'questions. Keywords and topics are not computed yet (null). Dates are UTC; the period is half-open ' +
    '[created_after, created_before). Needs the scope forms:read.',
  inputSchema: {
    type: 'object',
    properties: { workspace_id: ID, form_id: ID, created_after: INSTANT, created_before: INSTANT },
    required: ['workspace_id', 'form_id'],
    additionalProperties: false,
  },
  scopes: ['forms:read'],
  async run(args, call) {
    const where = { workspace_id: args.workspace_id, form_id: args.form_id };
    const form = await dataOf(call, 'getForm', where);
    if (failed(form)) return { ok: false, answer: form };
    const analytics = await dataOf(
      call,
      'getFormQuestionAnalytics',
      defined({ ...where, created_after: args.created_after, created_before: args.created_before }),
    );
    if (failed(analytics)) return { ok: false, answer: analytics };
    const questions = asList(analytics.data);
    const f = asObject(form.data);
    return {
      ok: true,
      body: {
        data: {
          form: { id: f.id, name: f.name },
          period: { created_after: args.created_after ?? null, created_before: args.created_before ?? null },
          responses: questions.reduce((n, q) => Math.max(n, Number(q.answered ?? 0) + Number(q.skipped ?? 0)), 0),
          score: headline(questions),
          questions: questions.map(questionSummary),
          keywords: null,
          topics: null,
        },
        meta: { keywords: 'not computed by this service yet' },
      },
    };
  },
};

/** The position of a findResponsesMentioning search: per question, the list cursor to go on from, null when done. */
type SearchState = Record<string, string | null>;

const encodeState = (s: SearchState) => Buffer.from(JSON.stringify(s)).toString('base64url');

function decodeState(cursor: unknown): SearchState | undefined {
  if (typeof cursor !== 'string' || cursor === '') return undefined;
  try {
    const s = asObject(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    return Object.values(s).every((v) => v === null || typeof v === 'string') ? (s as SearchState) : undefined;
  } catch {
    return undefined;
  }
}

/** The `cursor` of a Style A answer's `links.next`, or null. */
export function nextCursor(links: Json): string | null {
  if (typeof links.next !== 'string') return null;
  return new URL(links.next, 'http://localhost').searchParams.get('cursor');
}

const newestFirst = (a: Json, b: Json) => String(b.created_at).localeCompare(String(a.created_at)) || String(b.id).localeCompare(String(a.id));

const find: TaskTool = {
  name: 'findResponsesMentioning',
  description:
    'Find the responses of a form whose text answers contain `text` (ignoring case), newest first, through the ' +
    "responses list's answer_contains filter: in the question `question_id`, else in every text question of the form. " +
    'Results are Style A responses; when `next_cursor` is not null, call again with it as `cursor` (and the same ' +
    'other arguments) for more. Needs the scopes responses:read and forms:read. For a search by words (stemmed, ' +
    'with quoted phrases, `or` and `-word`, ordered by relevance), call listResponses with `q` instead.',
  inputSchema: {
    type: 'object',
    properties: {
      workspace_id: ID,
      form_id: ID,
      text: { type: 'string', minLength: 1, maxLength: 200, description: 'The phrase to look for (a substring, any case).' },
      question_id: { ...ID, description: 'Look only in this text question (default: every text question of the form).' },
      created_after: INSTANT,
      created_before: INSTANT,
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Responses per question and call.' },
      cursor: { type: 'string', minLength: 1, description: 'The `next_cursor` of the previous call.' },
    },
    required: ['workspace_id', 'form_id', 'text'],
    additionalProperties: false,
  },
  scopes: ['responses:read', 'forms:read'],
  async run(args, call) {
    const where = { workspace_id: args.workspace_id, form_id: args.form_id };
    let state = decodeState(args.cursor);
    if (args.cursor !== undefined && !state) {
      return {
        ok: false,
        answer: { status: 400, headers: {}, body: { error: { code: 'validation_error', message: '`cursor`: not a next_cursor of this tool' } } },
      };
    }
    if (!state) {
      let ids: string[];
      if (typeof args.question_id === 'string') ids = [args.question_id];
      else {
        const questions = await dataOf(call, 'listFormQuestions', where);
        if (failed(questions)) return { ok: false, answer: questions };
        ids = asList(questions.data)
          .filter((q) => q.type === 'text')
          .map((q) => String(q.id));
      }
      state = Object.fromEntries(ids.map((id) => [id, '']));
    }
    const limit = typeof args.limit === 'number' ? args.limit : 20;
    const found = new Map<string, Json>();
    const next: SearchState = {};
    for (const [qid, cursor] of Object.entries(state)) {
      if (cursor === null) {
        next[qid] = null;
        continue;
      }
      const page = await dataOf(
        call,
        'listResponses',
        defined({
          ...where,
          answer_contains: `${qid}:${String(args.text)}`,
          limit,
          cursor: cursor === '' ? undefined : cursor,
          created_after: args.created_after,
          created_before: args.created_before,
        }),
      );
      if (failed(page)) return { ok: false, answer: page };
      for (const r of asList(page.data)) found.set(String(r.id), r);
      next[qid] = nextCursor(page.links);
    }
    const more = Object.values(next).some((c) => c !== null);
    return {
      ok: true,
      body: {
        data: [...found.values()].sort(newestFirst),
        meta: { limit, has_more: more, questions: Object.keys(state), text: args.text },
        next_cursor: more ? encodeState(next) : null,
      },
    };
  },
};

/** The task tools, in the order they are listed. */
export const TASK_TOOLS: readonly TaskTool[] = [summarize, find];
