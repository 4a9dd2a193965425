/**
 * The golden examples of openapi/ (docs/api-rules.md, "Examples"; issue 19 item 2). For every operation
 * of the document (read from it, so new operations are covered): each request body and each success
 * answer has an example per style (`style_a`, `style_b` on the shared paths, the operation's own style
 * elsewhere), valid against its schema; and the live service's answer to the example request, on the
 * data set the examples were captured from, has the example's shape (keys and JSON types, not values).
 * Success answers of other media types are exempt for the reason MEDIA_EXEMPT gives. When this fails
 * after a change to the wire: `npm run examples:capture`, and review the diff of openapi/openapi.yaml.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import supertest from 'supertest';
import { buildApp, stopAppBackground } from '../../src/app';
import { createLogger } from '../../src/platform/logger';
import { loadOpenApiDocument, validatorSpec } from '../../src/platform/openapi';
import { createUsageCounter, type UsageCounter } from '../../src/platform/usage-counter';
import { testConfig } from '../support/app';
import {
  CHECKED_MEDIA,
  MEDIA_EXEMPT,
  bodyShapeProblems,
  deref,
  exampleCalls,
  exampleDatabase,
  exampleName,
  hasCheckedAnswer,
  prepareExampleIds,
  requestExamples,
  responseExamples,
  runExampleWalk,
  successMedia,
  type ExampleAnswer,
  type ExampleCall,
} from '../support/golden-examples';
import { documentOperations, type DocOperation } from '../support/openapi-ops';

const doc = loadOpenApiDocument();
const ops = documentOperations();

let drop: (() => Promise<void>) | undefined;
let app: Express;
let usage: UsageCounter;
let answers: ExampleAnswer[] = [];

beforeAll(async () => {
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  if (!adminUrl) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests through jest (global-setup finds PostgreSQL).');
  const { db, drop: dropDb } = await exampleDatabase(adminUrl);
  drop = dropDb;
  const logger = createLogger('silent');
  usage = createUsageCounter({ db, logger, intervalMs: 3_600_000 });
  // Without Redis, as the capture runs; webhook hosts count as public addresses without DNS.
  app = buildApp(testConfig(), { db, logger, usage, resolveHost: async () => [{ address: '93.184.215.14', family: 4 }] });
});

afterAll(async () => {
  if (app) await stopAppBackground(app);
  await drop?.();
});

const label = (op: DocOperation) => `${op.method} ${op.template}`;
const pointer = (...keys: string[]) => `#/${keys.map((k) => k.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** Schemas by JSON pointer into the document (without examples: Ajv needs none), with the document's formats. */
const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
addFormats(ajv);
ajv.addSchema(validatorSpec(doc), 'doc');
function schemaProblems(schemaAt: string, value: unknown): string[] {
  const validate = ajv.getSchema(`doc${schemaAt}`) ?? ajv.compile({ $ref: `doc${schemaAt}` });
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/** The pointer of a response's `content/<media>/schema`, through a `$ref` to components/responses. */
function responseSchemaAt(op: DocOperation, status: string, media: string): string {
  const raw = (
    (doc.paths[op.template] as Record<string, Record<string, Record<string, { $ref?: string }>>>)[op.method.toLowerCase()]!.responses as Record<
      string,
      { $ref?: string }
    >
  )[status]!;
  const base = raw.$ref ? raw.$ref : pointer('paths', op.template, op.method.toLowerCase(), 'responses', status);
  return `${base}/content/${media.replace(/\//g, '~1')}/schema`;
}

/** The example names an operation must have: both styles on a shared path, else exactly one style. */
function nameProblems(where: string, op: DocOperation, names: string[]): string[] {
  if (op.shared) return ['style_a', 'style_b'].filter((n) => !names.includes(n)).map((n) => `${where}: no example ${n}`);
  if (names.length !== 1 || !/^style_[ab]$/.test(names[0]!))
    return [`${where}: needs one example named by its style (style_a or style_b), has [${names.join(', ')}]`];
  return [];
}

/** Every missing, misnamed or invalid example of one operation. */
function exampleProblems(op: DocOperation): string[] {
  const problems: string[] = [];
  if (op.bodyTypes.includes('application/json')) {
    const examples = requestExamples(op, doc);
    problems.push(...nameProblems(`${label(op)} request`, op, Object.keys(examples)));
    const at = pointer('paths', op.template, op.method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema');
    for (const [name, value] of Object.entries(examples)) problems.push(...schemaProblems(at, value).map((p) => `${label(op)} request ${name}: ${p}`));
  }
  for (const [status, types] of successMedia(op)) {
    for (const media of types.length > 0 ? types : ['']) {
      if (!CHECKED_MEDIA.includes(media)) {
        if (!(media in MEDIA_EXEMPT)) problems.push(`${label(op)} ${status} ${media}: no example, and no reason in MEDIA_EXEMPT`);
        continue;
      }
      const where = `${label(op)} ${status} ${media}`;
      const examples = responseExamples(op, status, media, doc);
      problems.push(...nameProblems(where, op, Object.keys(examples)));
      if (media !== 'application/json') continue;
      for (const [name, value] of Object.entries(examples)) {
        problems.push(...schemaProblems(responseSchemaAt(op, status, media), value).map((p) => `${where} ${name}: ${p}`));
      }
    }
  }
  return problems;
}

/** How deep shapes are compared: a free-form object (the OpenAPI document itself, abbreviated in its example) by its top-level keys. */
function depthFor(op: DocOperation, status: string, media: string): number {
  const responses = ((doc.paths[op.template] as Record<string, Record<string, unknown>>)[op.method.toLowerCase()]!.responses ?? {}) as Record<string, unknown>;
  const content = deref(doc, responses[status])?.content as Record<string, { schema?: Record<string, unknown> }> | undefined;
  const s = content?.[media]?.schema ?? {};
  return s.type === 'object' && !s.properties && !s.$ref && !s.oneOf ? 1 : Infinity;
}

/** Where a live answer breaks its example: a status or style the call did not ask for, a missing example, another shape. */
function answerProblems(a: ExampleAnswer): string[] {
  const { op } = a.call;
  const where = `${label(op)}${a.call.style ? ` (${a.call.style})` : ''} → ${a.status} ${a.media}`;
  if (a.status >= 300 || !(op.responseTypes[String(a.status)] ?? []).includes(a.media))
    return [`${where}: not a documented success: ${String(JSON.stringify(a.body)).slice(0, 200)}`];
  if (a.call.style && a.style !== a.call.style) return [`${where}: answered in Style ${a.style}`];
  const example = responseExamples(op, String(a.status), a.media, doc)[exampleName(a.style)];
  if (example === undefined) return [`${where}: no example ${exampleName(a.style)}`];
  return bodyShapeProblems(a.media, example, a.body, depthFor(op, String(a.status), a.media)).map((p) => `${where}: ${p}`);
}

/** The body of a call: the document's request example of its style (the only one on a one-style path). */
function exampleBody(call: ExampleCall): unknown {
  if (!call.op.bodyTypes.includes('application/json')) return undefined;
  // A recovery's window must lie within the event log's retention (docs/webhooks.md, "Recovering missed events"): the
  // example's `since`, captured once, ages out of it; the walk asks for the last hour instead (the same shape).
  if (call.op.template.endsWith('/recover')) return { since: new Date(Date.now() - 3600_000).toISOString() };
  const examples = requestExamples(call.op, doc);
  return call.style ? examples[exampleName(call.style)] : Object.values(examples)[0];
}

describe('golden examples in openapi/', () => {
  it('every operation has a request and a success example per style, valid against their schemas', () => {
    expect(ops.filter(hasCheckedAnswer).length).toBeGreaterThan(45);
    const problems = ops.flatMap(exampleProblems);
    // The error envelope's example, shared by every operation's 400 through components.responses.ValidationError.
    const error = responseExamples(
      ops.find((o) => label(o) === 'GET /api/v1/workspaces')!,
      '400',
      'application/json',
      doc,
    ).validation_error;
    if (error === undefined) problems.push('components.responses.ValidationError has no example validation_error');
    else problems.push(...schemaProblems('#/components/schemas/Error', error));
    expect(problems).toEqual([]);
  });

  it("the live answers to the example requests have the examples' shapes", async () => {
    const agent = () => supertest.agent(app);
    const calls = exampleCalls(await prepareExampleIds(agent), ops);
    answers = await runExampleWalk(agent, calls, exampleBody, usage.flush);
    expect(answers.length).toBeGreaterThan(55);
    expect(answers.flatMap(answerProblems)).toEqual([]);
  }, 300_000); // about 15 s alone; the first request of each route compiles its validators, which takes minutes on a loaded 2-core machine

  it('fails when an example in the document no longer has the shape of the answer, or breaks its schema', () => {
    const live = answers.find((a) => label(a.call.op) === 'GET /api/v1/workspaces/{workspace_id}/responses' && a.style === 'B');
    expect(live).toBeDefined();
    // The component the operation's style_b example points to, changed in memory and put back.
    type Responses = Record<string, { content: Record<string, { examples: Record<string, { $ref: string }> }> }>;
    const responses = (doc.paths[live!.call.op.template] as Record<string, { responses: Responses }>).get!.responses;
    const ref = responses['200']!.content['application/json']!.examples.style_b!.$ref;
    const component = deref(doc, { $ref: ref }) as { value: { data: Array<Record<string, unknown>>; meta: Record<string, unknown> } };
    const original = component.value;
    const planted = (change: (example: typeof original) => void): string[] => {
      const changed = structuredClone(original);
      change(changed);
      component.value = changed;
      try {
        return answerProblems(live!);
      } finally {
        component.value = original;
      }
    };
    const where = 'GET /api/v1/workspaces/{workspace_id}/responses (B) → 200 application/json';
    expect(planted(() => {})).toEqual([]);
    expect(
      planted((e) => {
        e.data[0]!.created_at = e.data[0]!.createdAt;
        delete e.data[0]!.createdAt;
      }),
    ).toEqual([`${where}: $.data[0].created_at: in the example, not in the answer`, `${where}: $.data[0].createdAt: in the answer, not in the example`]);
    expect(planted((e) => (e.meta.total = String(e.meta.total)))).toEqual([`${where}: $.meta.total: the example has string, the answer number`]);
    expect(planted((e) => ((e.data[0]!.form as Record<string, unknown>).slug = 'nps'))).toEqual([
      `${where}: $.data[0].form.slug: in the example, not in the answer`,
    ]);
    // Values are not compared, a null matches any type, and an array compares its first item.
    expect(
      planted((e) => {
        e.meta.total = 12_345;
        e.data[0]!.row_id = 'row_other';
        e.data = e.data.slice(0, 1);
      }),
    ).toEqual([]);
    // The schema check of the first test: the retyped example breaks ResponseListEnvelopeB.
    const retyped = structuredClone(original);
    retyped.meta.total = 'six';
    expect(schemaProblems(responseSchemaAt(live!.call.op, '200', 'application/json'), retyped)).not.toEqual([]);
    expect(schemaProblems(responseSchemaAt(live!.call.op, '200', 'application/json'), original)).toEqual([]);
  });

  it('the shape check of CSV, NDJSON and Prometheus text finds a changed header, member or metric', () => {
    expect(bodyShapeProblems('text/csv', 'id,score\r\n1,2\r\n', 'id,score\r\n3,4\r\n')).toEqual([]);
    expect(bodyShapeProblems('text/csv', 'id,created_at\r\n', 'id,createdAt\r\n')).toEqual([
      'header row: the example has id,created_at, the answer id,createdAt',
    ]);
    expect(bodyShapeProblems('application/x-ndjson', '{"id":"a","score":1}\n', '{"id":"b","score":"1"}\n')).toEqual([
      '$.score: the example has number, the answer string',
    ]);
    expect(bodyShapeProblems('text/plain', '# TYPE a_total counter\n', '# TYPE b_total counter\nb_total 1\n')).toEqual([
      '# TYPE a_total counter: in the example, not in the answer',
    ]);
  });
});
