/**
 * The built-in demo data set of `seed --demo` and `npm run demo` (docs/import.md, "The demo data set"): two
 * workspaces, seven forms (one translated into German and French), 10,000 responses over the last
 * 90 days, two datatables whose rows responses link to, email events of every type and actionlists.
 *
 * The data set is a fixture document (docs/import.md, "The fixture document") built by a deterministic PRNG, so the same
 * `now` and `seed` always give the same document, ids included.
 */
import type { Db, DbHandle, DbTransaction } from '../../db';
import { findApiKeyByHash, isKeyInactive } from '../api-keys/api-keys.store';
import { createApiKey } from '../api-keys/create-api-key';
import { hashApiKeySecret } from '../api-keys/secrets';
import { firstRowOfWorkspace } from '../datatables/datatables.store';
import { firstFormTranslations, formTranslationsNamed } from '../forms/forms.store';
import { anyWorkspace, workspacesByLink } from '../workspaces/workspaces.store';
import { importFixture, type ImportSummary } from '../import/importer';
import type {
  FixtureActionlist,
  FixtureDatatable,
  FixtureDocument,
  FixtureEmailEvent,
  FixtureForm,
  FixtureResponse,
  FixtureRow,
} from '../import/fixture-schema';
import DATA from './demo-data.json';
import { createTopic, tagNewResponses } from '../topics/topics.store';
import { DAY_MS } from '../query/dates';

/** Links (slugs) of the two demo workspaces. */
export const DEMO_WORKSPACE_LINKS = ['acme', 'globex'] as const;

export const DEMO_RESPONSE_COUNT = 10_000;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** mulberry32: small, fast, good enough for demo and benchmark data; deterministic per seed, floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Random {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = prng(seed);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** An index drawn with the given relative weights. */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((a, b) => a + b, 0);
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }
  /** A few distinct items, in their original order. */
  some<T>(items: readonly T[], min: number, max: number): T[] {
    const n = this.int(min, Math.min(max, items.length));
    const chosen = new Set<number>();
    while (chosen.size < n) chosen.add(Math.floor(this.next() * items.length));
    return [...chosen].sort((a, b) => a - b).map((i) => items[i]!);
  }
  id(prefix: string): string {
    let s = '';
    for (let i = 0; i < 16; i++) s += ALPHABET[Math.floor(this.next() * ALPHABET.length)];
    return `${prefix}_${s}`;
  }
}

// Realistic score shapes: NPS skews to 9-10 with a tail of detractors; ratings skew to 4-5.
const NPS_WEIGHTS = [2, 1, 1, 2, 2, 4, 6, 11, 17, 24, 30];
const RATING_WEIGHTS = [4, 7, 16, 36, 37];

// The demo's forms, names and comments (data, kept beside the code that draws from them).
const { FORMS, DATATABLES, FIRST_NAMES, LAST_NAMES, COMPANY_WORDS, COMPANY_SUFFIXES, REASONS, CSAT_COMMENTS, PRODUCT_COMMENTS, EVENT_COMMENTS } = DATA;

type Lang = 'en' | 'de' | 'fr';

function npsCategory(score: number): 'promoter' | 'passive' | 'detractor' {
  return score >= 9 ? 'promoter' : score >= 7 ? 'passive' : 'detractor';
}

/** What every part of the demo data set shares: the one PRNG (drawn from in a fixed order) and the clock. */
interface DemoContext {
  rnd: Random;
  nowMs: number;
  /** When the demo account was set up: forms are created from here on, datatables ten days before. */
  setupMs: number;
}

type DemoForms = {
  nps: FixtureForm;
  csat: FixtureForm;
  product: FixtureForm;
  onboarding: FixtureForm;
  intl: FixtureForm;
  globexNps: FixtureForm;
  globexEvent: FixtureForm;
};

interface DemoRows {
  customers: FixtureRow[];
  accounts: FixtureRow[];
}

/** One response's answers, score and the actionlists it triggered. */
interface DemoAnswers {
  score: number;
  answers: { question_id: string; value: unknown }[];
  actionlists: FixtureActionlist[];
}

const iso = (ms: number) => new Date(Math.round(ms)).toISOString();
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Builds the demo fixture document (docs/import.md, "The fixture document"). Pure: the same `now` and `seed` give the
 * same document. Response times lie in the 90 days before `now`; no API keys are included.
 */
export function buildDemoFixture(now: Date = new Date(), seed = 42): FixtureDocument {
  const nowMs = now.getTime();
  // The parts draw from one PRNG, so the order of these calls is part of the data set.
  const c: DemoContext = { rnd: new Random(seed), nowMs, setupMs: nowMs - 120 * DAY_MS };
  const acme = c.rnd.id('ws');
  const globex = c.rnd.id('ws');
  const workspaces = [
    { id: acme, name: 'Acme Inc.', link: 'acme', created_at: iso(c.setupMs - 30 * DAY_MS) },
    { id: globex, name: 'Globex', link: 'globex', created_at: iso(c.setupMs - 20 * DAY_MS) },
  ];
  const forms = demoForms(c, acme, globex);
  const rows: DemoRows = { customers: customerRows(c), accounts: accountRows(c) };
  const datatables = demoDatatables(c, rows, acme, globex);
  const { responses, emailEvents } = demoResponses(c, forms, rows);
  return { workspaces, forms: Object.values(forms), datatables, responses, email_events: emailEvents };
}

/**
 * The seven forms: five of Acme (one translated into German and French), then two of Globex, as
 * demo-data.json lists them; each draws its id in that order.
 */
function demoForms({ rnd, setupMs }: DemoContext, acme: string, globex: string): DemoForms {
  const forms: Partial<DemoForms> = {};
  for (const f of FORMS) {
    forms[f.key as keyof DemoForms] = {
      id: rnd.id('frm'),
      workspace_id: f.workspace === 'acme' ? acme : globex,
      name: f.name,
      default_language: 'en',
      created_at: iso(setupMs + f.day * DAY_MS),
      questions: f.questions as FixtureForm['questions'],
      ...('translations' in f ? { translations: f.translations as FixtureForm['translations'] } : {}),
    };
  }
  return forms as DemoForms;
}

function person(rnd: Random): { name: string; email: string } {
  const first = rnd.pick(FIRST_NAMES);
  const last = rnd.pick(LAST_NAMES);
  return {
    name: `${first} ${last}`,
    email: `${first}.${last}`
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z.]/g, ''),
  };
}

/** Acme's 300 customers (the rows of its "Customers" datatable). */
function customerRows({ rnd, nowMs, setupMs }: DemoContext): FixtureRow[] {
  const customerRows: FixtureRow[] = [];
  for (let i = 1; i <= 300; i++) {
    const p = person(rnd);
    const plan = ['starter', 'pro', 'pro', 'business', 'enterprise'][rnd.weighted([30, 25, 15, 20, 10])]!;
    const signup = nowMs - rnd.int(130, 900) * DAY_MS;
    // Rows were imported from the CRM one by one when the table was set up.
    const created = setupMs - 10 * DAY_MS + i * 60_000;
    const data = {
      id: `cus_${String(i).padStart(4, '0')}`,
      name: p.name,
      email: `${p.email}${i}@example.com`,
      plan,
      seats: plan === 'starter' ? rnd.int(1, 5) : plan === 'pro' ? rnd.int(3, 25) : rnd.int(20, 500),
      active: rnd.chance(0.9),
      signup_date: day(signup),
    };
    const updated = rnd.chance(0.3) ? created + rnd.int(1, 100) * DAY_MS : created;
    customerRows.push({ row_id: rnd.id('row'), data, created_at: iso(created), updated_at: iso(Math.min(updated, nowMs - DAY_MS)) });
  }
  return customerRows;
}

/** Globex's 120 partner accounts (the rows of its "Accounts" datatable). */
function accountRows({ rnd, nowMs, setupMs }: DemoContext): FixtureRow[] {
  const accountRows: FixtureRow[] = [];
  for (let i = 1; i <= 120; i++) {
    const company = `${rnd.pick(COMPANY_WORDS)} ${rnd.pick(COMPANY_SUFFIXES)}`;
    const tier = ['silver', 'gold', 'platinum'][rnd.weighted([50, 35, 15])]!;
    const created = setupMs - 10 * DAY_MS + i * 60_000;
    accountRows.push({
      row_id: rnd.id('row'),
      data: {
        id: `acc_${String(i).padStart(4, '0')}`,
        company,
        industry: rnd.pick(['Manufacturing', 'Retail', 'Healthcare', 'Finance', 'Education', 'Energy']),
        tier,
        mrr: tier === 'silver' ? rnd.int(5, 20) * 100 : tier === 'gold' ? rnd.int(20, 80) * 100 : rnd.int(80, 300) * 100,
        renewal_date: day(nowMs + rnd.int(10, 360) * DAY_MS),
        contact: { email: `partners+${i}@example.org`, region: rnd.pick(['EMEA', 'NA', 'APAC']) },
      },
      created_at: iso(created),
    });
  }
  return accountRows;
}

/** The two datatables (Customers of Acme, Accounts of Globex), as demo-data.json lists their fields. */
function demoDatatables({ rnd, setupMs }: DemoContext, rows: DemoRows, acme: string, globex: string): FixtureDatatable[] {
  return DATATABLES.map((t) => ({
    id: rnd.id('tbl'),
    workspace_id: t.workspace === 'acme' ? acme : globex,
    name: t.name,
    created_at: iso(setupMs - 10 * DAY_MS),
    fields: t.fields as FixtureDatatable['fields'],
    rows: t.workspace === 'acme' ? rows.customers : rows.accounts,
  }));
}

/** How many responses each form gets (10,000 in all), in the order they are drawn. */
function responsePlan(f: DemoForms): [FixtureForm, number][] {
  return [
    [f.nps, 3500],
    [f.csat, 1800],
    [f.product, 1100],
    [f.onboarding, 700],
    [f.intl, 1400],
    [f.globexNps, 1000],
    [f.globexEvent, 500],
  ];
}

/** The 10,000 responses and the e-mail events of those answered by e-mail, each sorted by time. */
function demoResponses(c: DemoContext, forms: DemoForms, rows: DemoRows): { responses: FixtureResponse[]; emailEvents: FixtureEmailEvent[] } {
  const flows = new Map(
    Object.values(forms).map((f) => [
      f.id!,
      `flow_${f.name
        .toLowerCase()
        .replace(/[^a-z]+/g, '_')
        .replace(/^_|_$/g, '')}`,
    ]),
  );
  const responses: FixtureResponse[] = [];
  const emailEvents: FixtureEmailEvent[] = [];
  for (const [form, count] of responsePlan(forms)) {
    const isGlobex = form === forms.globexNps || form === forms.globexEvent;
    const linkRate = form === forms.nps || form === forms.csat ? 0.6 : form === forms.globexNps ? 0.7 : form === forms.intl ? 0.3 : 0.1;
    const source: ResponseSource = { form, forms, rowsOfWs: isGlobex ? rows.accounts : rows.customers, isGlobex, linkRate, flowId: flows.get(form.id!)! };
    for (let n = 0; n < count; n++) responses.push(demoResponse(c, source, emailEvents));
  }
  responses.sort((a, b) => (a.created_at! < b.created_at! ? -1 : a.created_at! > b.created_at! ? 1 : 0));
  emailEvents.sort((a, b) => (a.created_at! < b.created_at! ? -1 : a.created_at! > b.created_at! ? 1 : 0));
  return { responses, emailEvents };
}

/** What the responses of one form share. */
interface ResponseSource {
  form: FixtureForm;
  forms: DemoForms;
  /** The datatable rows a response of this form may link to (its workspace's). */
  rowsOfWs: FixtureRow[];
  isGlobex: boolean;
  /** The share of responses linked to a row. */
  linkRate: number;
  flowId: string;
}

/** One response; when it came by e-mail in the last three weeks, its e-mail's events are pushed to `emailEvents`. */
function demoResponse(c: DemoContext, s: ResponseSource, emailEvents: FixtureEmailEvent[]): FixtureResponse {
  const { rnd, nowMs } = c;
  const { form, isGlobex } = s;
  // More responses recently (a growing product): the age is skewed towards now.
  const ageMs = Math.max(60_000, 90 * DAY_MS * (1 - Math.sqrt(rnd.next())));
  const createdMs = nowMs - ageMs;
  const lang: Lang = form === s.forms.intl ? (['en', 'de', 'fr'] as const)[rnd.weighted([40, 35, 25])]! : 'en';
  const { score, answers, actionlists } = demoAnswers(rnd, s.forms, form, lang, createdMs);

  const row = rnd.chance(s.linkRate) ? rnd.pick(s.rowsOfWs) : undefined;
  const viaEmail = rnd.chance(1 / 3);
  const response: FixtureResponse = {
    id: rnd.id('rsp'),
    form_id: form.id!,
    score,
    version: 1,
    language: lang,
    created_at: iso(createdMs),
    row_id: row?.row_id ?? null,
    respondent_email: null,
    email_id: null,
    answers,
    actionlists,
  };
  // A few customers changed plan since they answered: the captured row shows the old plan.
  if (row && !isGlobex && rnd.chance(0.05)) {
    response.table_data = { ...row.data, plan: row.data.plan === 'starter' ? 'pro' : 'starter' };
  }
  if (viaEmail) {
    const email = row
      ? String(isGlobex ? (row.data.contact as { email: string }).email : row.data.email)
      : `${person(rnd).email}${rnd.int(1, 999)}@example.com`;
    const emailId = rnd.id('em');
    response.respondent_email = email;
    response.email_id = emailId;
    // Delivery events exist for the last three weeks only (when the mail provider was connected).
    if (ageMs < 21 * DAY_MS) {
      emailEvents.push(
        ...emailHistory(rnd, {
          workspaceId: form.workspace_id,
          emailId,
          email,
          rowId: row?.row_id ?? null,
          formId: form.id!,
          flowId: s.flowId,
          answeredMs: createdMs,
          nowMs,
          iso,
        }),
      );
    }
  }
  return response;
}

/** The answers to one of the demo forms, each form by its own function. */
function demoAnswers(rnd: Random, f: DemoForms, form: FixtureForm, lang: Lang, createdMs: number): DemoAnswers {
  if (form === f.nps || form === f.intl || form === f.globexNps) return npsAnswers(rnd, f, form, lang);
  if (form === f.csat) return csatAnswers(rnd);
  if (form === f.product) return productAnswers(rnd);
  if (form === f.onboarding) return onboardingAnswers(rnd, createdMs);
  return eventAnswers(rnd);
}

function npsAnswers(rnd: Random, f: DemoForms, form: FixtureForm, lang: Lang): DemoAnswers {
  const answers: DemoAnswers['answers'] = [];
  const actionlists: FixtureActionlist[] = [];
  const score = rnd.weighted(NPS_WEIGHTS);
  const cat = npsCategory(score);
  answers.push({ question_id: 'q_score', value: score });
  if (form === f.globexNps)
    answers.push({ question_id: 'q_products', value: rnd.some(['opt_widgets', 'opt_gadgets', 'opt_cloud', 'opt_consulting'], 1, 3).map((id) => ({ id })) });
  if (rnd.chance(0.7)) answers.push({ question_id: 'q_reason', value: rnd.pick(REASONS[lang][cat]) });
  if (form === f.nps && cat !== 'promoter') {
    answers.push({ question_id: 'q_improve', value: { id: rnd.pick(['opt_performance', 'opt_pricing', 'opt_support', 'opt_docs', 'opt_features']) } });
  }
  if (form === f.intl) {
    if (rnd.chance(0.8))
      answers.push({ question_id: 'q_channel', value: { id: rnd.pick(['opt_search', 'opt_referral', 'opt_social', 'opt_event', 'opt_other']) } });
    if (rnd.chance(0.6))
      answers.push({ question_id: 'q_valued', value: rnd.some(['opt_ease', 'opt_price', 'opt_support', 'opt_reliability'], 1, 2).map((id) => ({ id })) });
  }
  if (cat === 'detractor') {
    actionlists.push({ actionlist_id: 'al_detractor_follow_up', triggered_score: score, triggers: score <= 3 ? ['detractor', 'churn_risk'] : ['detractor'] });
  } else if (cat === 'promoter') {
    actionlists.push({ actionlist_id: 'al_promoter_review_request', triggered_score: score, triggers: ['promoter'] });
  }
  return { score, answers, actionlists };
}

function csatAnswers(rnd: Random): DemoAnswers {
  const answers: DemoAnswers['answers'] = [];
  const actionlists: FixtureActionlist[] = [];
  const score = rnd.weighted(RATING_WEIGHTS) + 1;
  answers.push({ question_id: 'q_csat', value: score });
  answers.push({ question_id: 'q_resolved', value: { id: score >= 4 ? (rnd.chance(0.9) ? 'opt_yes' : 'opt_partly') : rnd.pick(['opt_partly', 'opt_no']) } });
  if (rnd.chance(0.5)) answers.push({ question_id: 'q_comment', value: rnd.pick(CSAT_COMMENTS) });
  if (score <= 2) actionlists.push({ actionlist_id: 'al_support_escalation', triggered_score: score, triggers: ['low_csat'] });
  return { score, answers, actionlists };
}

function productAnswers(rnd: Random): DemoAnswers {
  const answers: DemoAnswers['answers'] = [];
  const score = rnd.weighted(RATING_WEIGHTS) + 1;
  answers.push({ question_id: 'q_overall', value: score });
  answers.push({ question_id: 'q_area', value: { id: rnd.pick(['opt_dashboard', 'opt_reports', 'opt_integrations', 'opt_mobile']) } });
  if (rnd.chance(0.75)) {
    answers.push({
      question_id: 'q_features',
      value: rnd.some(['opt_dark_mode', 'opt_sso', 'opt_webhooks', 'opt_csv', 'opt_custom_fields'], 1, 3).map((id) => ({ id })),
    });
  }
  if (rnd.chance(0.5)) answers.push({ question_id: 'q_feedback', value: rnd.pick(PRODUCT_COMMENTS) });
  if (rnd.chance(0.2)) answers.push({ question_id: 'q_contact', value: `${person(rnd).email}@example.com` });
  return { score, answers, actionlists: [] };
}

function onboardingAnswers(rnd: Random, createdMs: number): DemoAnswers {
  const answers: DemoAnswers['answers'] = [];
  const score = rnd.weighted(RATING_WEIGHTS) + 1;
  answers.push({ question_id: 'q_ease', value: score });
  answers.push({ question_id: 'q_start_date', value: day(createdMs - rnd.int(1, 60) * DAY_MS) });
  if (rnd.chance(0.8)) answers.push({ question_id: 'q_team_size', value: rnd.weighted([30, 30, 20, 12, 8]) * 10 + rnd.int(1, 9) });
  if (rnd.chance(0.9)) answers.push({ question_id: 'q_role', value: { id: rnd.pick(['opt_admin', 'opt_manager', 'opt_developer', 'opt_ic']) } });
  return { score, answers, actionlists: [] };
}

function eventAnswers(rnd: Random): DemoAnswers {
  const answers: DemoAnswers['answers'] = [];
  const score = rnd.weighted(RATING_WEIGHTS) + 1;
  answers.push({ question_id: 'q_rating', value: score });
  if (rnd.chance(0.85)) answers.push({ question_id: 'q_session', value: { id: rnd.pick(['opt_keynote', 'opt_workshop', 'opt_panel', 'opt_roadmap']) } });
  if (rnd.chance(0.4)) answers.push({ question_id: 'q_comment', value: rnd.pick(EVENT_COMMENTS) });
  return { score, answers, actionlists: [] };
}

interface EmailContext {
  workspaceId: string;
  emailId: string;
  email: string;
  rowId: string | null;
  formId: string;
  flowId: string;
  answeredMs: number;
  nowMs: number;
  iso: (ms: number) => string;
}

/** The events of one survey e-mail that was answered: send → (soft bounce) → delivery → open → click, then rarely unsubscribe or complaint. */
function emailHistory(rnd: Random, c: EmailContext): FixtureEmailEvent[] {
  const events: FixtureEmailEvent[] = [];
  const sentMs = c.answeredMs - rnd.int(10, 3 * 24 * 60) * 60_000;
  const add = (type: FixtureEmailEvent['type'], ms: number) =>
    events.push({
      id: rnd.id('ev'),
      workspace_id: c.workspaceId,
      email_id: c.emailId,
      email: c.email,
      type,
      created_at: c.iso(Math.min(ms, c.nowMs - 1000)),
      row_id: c.rowId,
      form_id: c.formId,
      flow_id: c.flowId,
    });
  add('send', sentMs);
  let t = sentMs + rnd.int(1, 30) * 1000;
  if (rnd.chance(0.03)) {
    add('bounce', t); // soft bounce; the retry got through
    t += rnd.int(5, 60) * 60_000;
  }
  add('delivery', t);
  const openMs = t + (c.answeredMs - t) * rnd.next() * 0.8;
  if (rnd.chance(0.85)) add('open', openMs);
  if (rnd.chance(0.7)) add('click', openMs + (c.answeredMs - openMs) * rnd.next() * 0.5);
  if (rnd.chance(0.02)) add('unsubscribe', c.answeredMs + rnd.int(1, 7 * 24 * 60) * 60_000);
  else if (rnd.chance(0.01)) add('complaint', c.answeredMs + rnd.int(1, 3 * 24 * 60) * 60_000);
  return events;
}

export interface SeedOptions {
  now?: Date;
  seed?: number;
  onProgress?: (done: number, total: number) => void;
}

/** `workspaceIds`: the demo workspaces, for seedDemoTopics. */
export type SeedResult = { seeded: false } | { seeded: true; summary: ImportSummary; workspaceIds: string[] };

/**
 * Loads the demo data set into an EMPTY database (no workspace at all); otherwise does nothing.
 * @returns `{seeded: false}` when the database already had a workspace, else the import summary.
 * @throws ImportError only if the database changed between the check and the write.
 * Spec: docs/import.md, "The demo data set" (`seed --demo`, `npm run demo`).
 */
export async function seedDemo(db: Db, opts: SeedOptions = {}): Promise<SeedResult> {
  const any = await anyWorkspace(db);
  if (any) return { seeded: false };
  const now = opts.now ?? new Date();
  const fixture = buildDemoFixture(now, opts.seed ?? 42);
  const summary = await importFixture(db, fixture, { now, onProgress: opts.onProgress });
  return { seeded: true, summary, workspaceIds: (fixture.workspaces ?? []).map((w) => w.id!) };
}

/**
 * The demo's topics (docs/analytics.md, "Topics"), in English and German like the demo's text answers: the same three
 * in each demo workspace.
 */
export const DEMO_TOPICS: ReadonlyArray<{ name: string; query: string }> = [
  { name: 'pricing', query: 'price | prices | expensive | cost | pricing | preis | preise | teuer | kosten' },
  { name: 'support', query: 'support | help | service | hilfe | kundendienst | kundenservice' },
  { name: 'speed', query: 'slow | fast | speed | quick | langsam | schnell | geschwindigkeit' },
];

/**
 * Creates the demo topics in the demo workspaces and tags their responses with them at once (the tagging job, which
 * starts with `serve`, then finds them tagged), in the caller's transaction (the CLI's, after seedDemo).
 */
export async function seedDemoTopics(trx: DbTransaction, workspaceIds: readonly string[]): Promise<void> {
  for (const ws of workspaceIds) {
    for (const t of DEMO_TOPICS) await createTopic(trx, ws, t);
    await tagNewResponses(trx, ws);
  }
}

/**
 * Requests per minute of the demo key: a first tour of the API (the banner's curl lines, a form, the docs
 * page) used 42 requests in its first minute, near the default 60 (README.md, "Quickstart").
 */
export const DEMO_KEY_RATE_LIMIT_PER_MINUTE = 600;

/**
 * The demo key, in the caller's transaction: the key of `previous` (the secret a restart of the demo
 * kept) when it is still a usable key named "demo" on both demo workspaces, else a new key named "demo"
 * with every scope on the demo workspaces (`acme`, then `globex`) and DEMO_KEY_RATE_LIMIT_PER_MINUTE.
 * @returns the clear secret, the workspace ids, and whether `previous` was reused.
 * @throws Error when the demo workspaces are not in the database (seed first).
 * Spec: README.md, "Quickstart"; docs/import.md, "The demo data set".
 */
export async function createDemoKey(
  db: DbHandle,
  previous?: { secret: string },
): Promise<{ id: string; secret: string; workspaceIds: string[]; reused: boolean }> {
  const rows = await workspacesByLink(db, [...DEMO_WORKSPACE_LINKS]);
  const workspaceIds = DEMO_WORKSPACE_LINKS.map((link) => rows.find((r) => r.link === link)?.id).filter((id): id is string => id !== undefined);
  if (workspaceIds.length !== DEMO_WORKSPACE_LINKS.length) {
    throw new Error('the demo workspaces (links "acme" and "globex") are not in this database; seed the demo into an empty database first');
  }
  if (previous) {
    const kept = await findApiKeyByHash(db, hashApiKeySecret(previous.secret));
    if (kept && kept.name === 'demo' && !isKeyInactive(kept) && workspaceIds.every((w) => kept.workspaceIds.includes(w))) {
      return { id: kept.id, secret: previous.secret, workspaceIds, reused: true };
    }
  }
  const key = await createApiKey(db, { name: 'demo', workspaceIds, rateLimitPerMinute: DEMO_KEY_RATE_LIMIT_PER_MINUTE });
  return { id: key.id, secret: key.secret, workspaceIds, reused: false };
}

/** What `demo` offers to answer in the browser: a form (with its languages) and a customer row's email. */
export interface DemoPageTargets {
  form: { id: string; translations: Record<string, unknown> | null };
  /** The first demo customer row (for an email link), if the workspace has rows. */
  row: { rowId: string; email: string | undefined } | undefined;
}

/**
 * A demo form to answer in the browser (the translated "Customer NPS (Europe)" when it is there, else the
 * workspace's first form) and the workspace's first customer row; undefined when it has no form.
 */
export async function demoPageTargets(db: DbHandle, workspaceId: string): Promise<DemoPageTargets | undefined> {
  const form = (await formTranslationsNamed(db, workspaceId, 'Customer NPS (Europe)')) ?? (await firstFormTranslations(db, workspaceId));
  if (!form) return undefined;
  const row = await firstRowOfWorkspace(db, workspaceId);
  return { form, row: row && { rowId: row.row_id, email: typeof row.data.email === 'string' ? row.data.email : undefined } };
}
