/**
 * Contract between the app and openapi/: every route the app serves is described there, and every
 * operation described there is served. Routes are read from Express's router tree. Every operation's
 * answer to a well-formed request (both styles where shared, and a replay of each write) carries the
 * headers its status declares `required`, and declares each client-facing header it carries (issue 19 item 5).
 */
import type { Response } from 'supertest';
import { loadOpenApiDocument } from '../../../src/platform/openapi';
import { useTestApp } from '../../support/app';
import { scenario } from '../../support/given';
import { documentOperations, fillPath, headerProblems, validValue, wellFormedBody, type DocOperation } from '../../support/openapi-ops';
import { headOfStream, streamsEvents } from '../../support/sse';

// STYLE_B_SUNSET set, so Style B answers carry Deprecation, Sunset and Link (docs/analytics.md, "Deprecation headers").
const t = useTestApp({ styleBSunset: '2027-02-28' });

interface Layer {
  rawPath?: string | RegExp;
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `{method} {path}` of every route, with Express params rewritten to OpenAPI templates. */
function served(stack: Layer[], prefix = ''): Set<string> {
  const out = new Set<string>();
  for (const layer of stack) {
    if (layer.route) {
      const path = (prefix + (layer.route.path === '/' && prefix ? '' : layer.route.path)).replace(/:(\w+)/g, '{$1}');
      for (const method of Object.keys(layer.route.methods)) if (method !== '_all') out.add(`${method.toUpperCase()} ${path}`);
    } else if (layer.handle?.stack && typeof layer.rawPath === 'string') {
      for (const r of served(layer.handle.stack, prefix + (layer.rawPath === '/' ? '' : layer.rawPath))) out.add(r);
    }
  }
  return out;
}

/**
 * Routes that are not the REST API and so not in openapi/: the HTML reference (`/docs`, whose document is
 * `/openapi.json`) and the MCP endpoint (`/mcp`, JSON-RPC for agents whose tools are generated from openapi/:
 * docs/agents.md). `/metrics` and the probes are plain HTTP resources and are described there.
 */
const NOT_API = ['GET /docs', 'POST /mcp'];

function described(): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(loadOpenApiDocument().paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) if (item[method]) out.add(`${method.toUpperCase()} ${path}`);
  }
  return out;
}

describe('routes and openapi/', () => {
  it('serves every operation of the document', () => {
    const routes = served((t.app as unknown as { router: { stack: Layer[] } }).router.stack);
    const missing = [...described()].filter((op) => !routes.has(op));
    expect(missing).toEqual([]);
  });

  it('describes every route the app serves', () => {
    const routes = served((t.app as unknown as { router: { stack: Layer[] } }).router.stack);
    const doc = described();
    const undocumented = [...routes].filter((op) => !doc.has(op) && !NOT_API.some((prefix) => op.startsWith(prefix)));
    expect(undocumented).toEqual([]);
  });
});

describe('response headers and openapi/', () => {
  it('every answer carries the headers its operation and status declare required, and declares those it sends', async () => {
    const s = await scenario(t.db, { responseCount: 4 });
    const victim = await t
      .http()
      .post(`/api/v1/workspaces/${s.ws}/api-keys`)
      .set('X-API-Key', s.key)
      .send({ name: 'victim', scopes: ['forms:read'] });
    const endpoint = await t
      .http()
      .post(`/api/v1/workspaces/${s.ws}/webhook-endpoints`)
      .set('X-API-Key', s.key)
      .send({ url: 'https://hooks.example.com/contract', events: ['row.created'] });
    const ids: Record<string, string> = {
      workspace_id: s.ws,
      form_id: s.nps,
      datatable_id: s.table,
      table_id: s.table,
      row_id: s.rows[1]!,
      response_id: s.responses[0]!.id,
      email_id: s.emailIds[0]!,
      endpoint_id: endpoint.body.data.id,
      key_id: victim.body.data.id,
      question_id: 'q_score',
    };
    const problems: string[] = [];
    const seen = new Set<string>();
    const check = (op: DocOperation, style: string, res: Response) => {
      for (const name of ['etag', 'location', 'idempotent-replayed', 'deprecation', 'retry-after']) if (res.headers[name] !== undefined) seen.add(name);
      problems.push(...headerProblems(op, res.status, res.headers).map((p) => `${op.method} ${op.template} ${style}: ${p}`));
    };
    // Reads first, so the writes (deletes among them) do not empty what the reads look at.
    const ops = documentOperations().sort(
      (a, b) => Number(a.method !== 'GET') - Number(b.method !== 'GET') || Number(a.method === 'DELETE') - Number(b.method === 'DELETE'),
    );
    for (const op of ops) {
      for (const style of op.shared ? ['A', 'B'] : ['']) {
        const query = op.params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(String(validValue(p.schema)))}`);
        const path = fillPath(op.template, ids) + (query.length > 0 ? `?${query.join('&')}` : '');
        const json = op.bodyTypes.length === 0 || op.bodyTypes.includes('application/json');
        // A response the scenario's NPS form accepts, so the create answers 201 with Location.
        const created = { form_id: s.nps, answers: [style === 'B' ? { id: 'q_score', value: 9 } : { question_id: 'q_score', value: 9 }] };
        const body = op.method === 'GET' ? undefined : op.template.endsWith('/responses') ? created : json ? wellFormedBody(op) : {};
        const key = `contract-${op.method}-${op.template}-${style}`;
        const send = () => {
          let r = t.http()[op.method.toLowerCase() as 'get'](path).set('X-API-Key', s.key);
          if (style) r = r.set('X-API-Style', style);
          if (op.method !== 'GET') r = r.set('Idempotency-Key', key);
          if (body !== undefined) r = json ? r.send(body as object) : r.type('form').send(body as object);
          // A live stream never ends: its headers are what is checked.
          return streamsEvents(op) ? headOfStream(r) : r;
        };
        const res = await send();
        check(op, style, res);
        if (op.method !== 'GET' && res.status < 300) check(op, `${style} replay`, await send());
      }
    }
    expect(problems).toEqual([]);
    // The walk reached the answers that carry the conditional headers.
    expect([...seen].sort()).toEqual(['deprecation', 'etag', 'idempotent-replayed', 'location']);
  }, 300_000); // a walk of every operation: each route's validators compile on first use, slow on a busy 2-core machine
});
