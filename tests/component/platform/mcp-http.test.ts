/**
 * The MCP endpoint of `serve` (issue 32 item 3; docs/agents.md), driven by the SDK's own client over the Streamable
 * HTTP transport against the test app on a port: the tools a read key and an all-scopes key are shown, a list tool
 * paged with its cursor, writes with idempotency, the scope error, the 429 past the key's budget, no secret in a
 * result, the task tools, and the endpoint's own authentication (X-API-Key or Bearer).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ALL_SCOPES, type Scope } from '../../../src/core/scopes';
import { SCOPE_ERROR_CODE } from '../../../src/mcp/server';
import { useTestApp } from '../../support/app';
import { formWorkspace, goodAnswers, keyFor } from '../../support/given';

const t = useTestApp();
let server: http.Server;
let url: URL;
const clients: Client[] = [];

beforeAll(async () => {
  server = http.createServer(t.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await new Promise((resolve) => server.close(resolve));
});

/** A connected SDK client sending `headers` on every request. */
async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const READ_SCOPES = ALL_SCOPES.filter((s) => s.endsWith(':read'));
const toolNames = async (c: Client) => (await c.listTools()).tools.map((tool) => tool.name).sort();
/** The structured content of a successful tool result. */
const ok = (r: unknown) => {
  const result = r as CallToolResult;
  expect(result.isError).toBeFalsy();
  return result.structuredContent as {
    data: Array<Record<string, unknown>> & Record<string, unknown>;
    meta: Record<string, unknown>;
    links?: Record<string, unknown>;
  };
};

/** Five responses on the form of `f`, with the text answers given, created through the MCP write tool. */
async function fillForm(client: Client, f: { ws: string; form: string }, texts: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, text] of texts.entries()) {
    const answers = goodAnswers().map((a) => (a.question_id === 'q_text' ? { ...a, value: text } : a));
    const res = await client.callTool({
      name: 'createResponse',
      arguments: { workspace_id: f.ws, body: { form_id: f.form, answers }, idempotency_key: `fill-${f.form}-${i}` },
    });
    ids.push(String((ok(res).data as unknown as { id: string }).id));
  }
  return ids;
}

describe('MCP over Streamable HTTP', () => {
  it('lists the tools of the key: a read key sees no write tool, an all-scopes key sees them, neither sees secret or Style B tools', async () => {
    const f = await formWorkspace(t.db);
    const reader = await connect({ 'X-API-Key': await keyFor(t.db, [f.ws], { scopes: READ_SCOPES as Scope[] }) });
    const all = await connect({ Authorization: `Bearer ${f.key}` });
    const read = await toolNames(reader);
    const every = await toolNames(all);
    expect(read).toEqual(expect.arrayContaining(['listResponses', 'getForm', 'getFormQuestionAnalytics', 'summarizeFormFeedback', 'findResponsesMentioning']));
    for (const write of ['createResponse', 'upsertDatatableRows', 'deleteDatatableRow', 'createWebhookEndpoint', 'revokeApiKey']) {
      expect(read).not.toContain(write);
      expect(every).toContain(write);
    }
    for (const never of ['createApiKey', 'rotateWebhookSecret', 'getOpenApiDocument', 'listTablesB', 'exportResponses', 'submitPublicResponse', 'getHealth']) {
      expect(every).not.toContain(never);
    }
    const list = (await all.listTools()).tools.find((tool) => tool.name === 'listResponses')!;
    expect(list.description).toContain('List responses');
    expect(Object.keys(list.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['workspace_id', 'cursor', 'limit', 'form_id']));
    // Style B-only parameters of the shared path are not arguments: results are Style A.
    expect(Object.keys(list.inputSchema.properties ?? {})).not.toContain('page');
    expect(list.inputSchema.required).toEqual(['workspace_id']);
  });

  it('calls a list tool and pages it with the cursor; writes replay with the same idempotency key', async () => {
    const f = await formWorkspace(t.db);
    const client = await connect({ 'X-API-Key': f.key });
    const created = await fillForm(client, f, ['one', 'two', 'three', 'four', 'five']);
    const again = await client.callTool({
      name: 'createResponse',
      arguments: {
        workspace_id: f.ws,
        body: { form_id: f.form, answers: goodAnswers().map((a) => (a.question_id === 'q_text' ? { ...a, value: 'one' } : a)) },
        idempotency_key: `fill-${f.form}-0`,
      },
    });
    expect((ok(again).data as unknown as { id: string }).id).toBe(created[0]);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = ok(
        await client.callTool({ name: 'listResponses', arguments: { workspace_id: f.ws, form_id: f.form, limit: 2, ...(cursor ? { cursor } : {}) } }),
      );
      pages++;
      expect(page.meta).toMatchObject({ limit: 2 });
      seen.push(...page.data.map((r) => String(r.id)));
      const next = page.links?.next;
      cursor = typeof next === 'string' ? new URL(next).searchParams.get('cursor')! : undefined;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual([...created].sort());
    // The result is the Style A resource, as GET answers it.
    const direct = await t.http().get(`/api/v1/workspaces/${f.ws}/responses/${created[0]}`).set('X-API-Key', f.key);
    const viaTool = ok(await client.callTool({ name: 'getResponse', arguments: { workspace_id: f.ws, response_id: created[0] } }));
    expect(viaTool.data).toEqual(direct.body.data);
  });

  it('refuses a tool beyond the key scopes with an MCP error naming the scope, before anything runs', async () => {
    const f = await formWorkspace(t.db);
    const reader = await connect({ 'X-API-Key': await keyFor(t.db, [f.ws], { scopes: READ_SCOPES as Scope[] }) });
    const call = reader.callTool({ name: 'createResponse', arguments: { workspace_id: f.ws, body: { form_id: f.form, answers: goodAnswers() } } });
    await expect(call).rejects.toBeInstanceOf(McpError);
    await expect(call).rejects.toMatchObject({ code: SCOPE_ERROR_CODE, message: expect.stringContaining('responses:write') });
    expect((await t.http().get(`/api/v1/workspaces/${f.ws}/responses`).set('X-API-Key', f.key)).body.data).toEqual([]);
  });

  it('answers an API error as a tool error with the API error body (a 404 naming the resource)', async () => {
    const f = await formWorkspace(t.db);
    const client = await connect({ 'X-API-Key': f.key });
    const res = (await client.callTool({ name: 'getForm', arguments: { workspace_id: f.ws, form_id: 'frm_missing' } })) as CallToolResult;
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({ status: 404, error: { code: 'resource_not_found' } });
  });

  it('counts each tool call against the key budget: past it the call is a tool error with status 429 and retry_after', async () => {
    const f = await formWorkspace(t.db);
    const key = await keyFor(t.db, [f.ws], { rateLimitPerMinute: 4 });
    // Connecting costs two requests (initialize and its notification); each call then costs one.
    const client = await connect({ 'X-API-Key': key });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = (await client.callTool({ name: 'getWorkspace', arguments: { workspace_id: f.ws } })) as CallToolResult;
      statuses.push(r.isError ? Number((r.structuredContent as { status: number }).status) : 200);
      if (r.isError) expect(r.structuredContent).toMatchObject({ status: 429, retry_after: expect.any(Number), error: { code: 'rate_limit_exceeded' } });
    }
    expect(statuses).toEqual([200, 200, 429]);
    // tools/list is counted at the endpoint itself: an HTTP 429.
    await expect(client.listTools()).rejects.toMatchObject({ code: 429, message: expect.stringContaining('rate_limit_exceeded') });
  });

  it('never shows a secret: the signing secret of a created webhook endpoint is masked', async () => {
    const f = await formWorkspace(t.db);
    const client = await connect({ 'X-API-Key': f.key });
    const res = (await client.callTool({
      name: 'createWebhookEndpoint',
      arguments: { workspace_id: f.ws, body: { url: 'https://hooks.example.com/mcp', events: ['response.created'] } },
    })) as CallToolResult;
    const text = JSON.stringify(res);
    expect(res.isError).toBeFalsy();
    expect(text).not.toMatch(/whsec_/);
    expect((res.structuredContent as { data: { secret: string } }).data.secret).toMatch(/^\[redacted/);
  });

  it('summarises a form and finds the responses that mention a phrase, on the same core as the endpoints', async () => {
    const f = await formWorkspace(t.db);
    const client = await connect({ 'X-API-Key': f.key });
    const ids = await fillForm(client, f, ['Slow checkout', 'great', 'too slow to load', 'fine', 'SLOW']);
    const summary = ok(await client.callTool({ name: 'summarizeFormFeedback', arguments: { workspace_id: f.ws, form_id: f.form } })).data as unknown as Record<
      string,
      unknown
    >;
    expect(summary).toMatchObject({ form: { id: f.form }, responses: 5, score: { kind: 'nps', value: 100 }, keywords: null, topics: null });
    const plan = (summary.questions as Array<Record<string, unknown>>).find((q) => q.question_id === 'q_plan');
    expect(plan).toMatchObject({ answered: 5, top_answers: [{ value: 'Pro', count: 5 }] });
    const found: string[] = [];
    let cursor: string | null = null;
    do {
      const page = ok(
        await client.callTool({
          name: 'findResponsesMentioning',
          arguments: { workspace_id: f.ws, form_id: f.form, text: 'slow', limit: 2, ...(cursor ? { cursor } : {}) },
        }),
      );
      found.push(...page.data.map((r) => String(r.id)));
      cursor = (page as unknown as { next_cursor: string | null }).next_cursor;
    } while (cursor);
    expect(found.sort()).toEqual([ids[0], ids[2], ids[4]].sort());
  });

  it('refuses a missing or unknown key with 401, and GET with 405', async () => {
    await expect(connect({})).rejects.toMatchObject({ code: 401, message: expect.stringContaining('invalid_api_key') });
    await expect(connect({ Authorization: 'Bearer fa_unknownunknownunknownunknown' })).rejects.toMatchObject({ code: 401 });
    const get = await t.http().get('/mcp');
    expect([get.status, get.headers.allow]).toEqual([405, 'POST']);
  });
});
