/**
 * `feedback-service mcp` (issue 32 item 3; docs/agents.md, "Over stdio"), driven by the SDK's own client over stdio:
 * the built CLI (dist/src/cli/main.js) spawned on the run's PostgreSQL and Redis with the key in FEEDBACK_API_KEY.
 * The tools of a read key and an all-scopes key, a list tool paged with its cursor, the scope error and the 429 past
 * the key's budget (counted in Redis, shared with `serve`). Not in the pglite project: the child opens its own
 * database (as cli.test.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ALL_SCOPES, type Scope } from '../../../src/core/scopes';
import type { Db } from '../../../src/db/connection';
import { SCOPE_ERROR_CODE } from '../../../src/mcp/server';
import { cliJs } from '../../support/cli';
import { openTestDb, testDbUrl } from '../../support/db';
import { keyFor, scenario } from '../../support/given';

let db: Db;
const clients: Client[] = [];
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await db.destroy();
});

/** The CLI's MCP server for `key`, connected. */
async function spawnMcp(key: string | undefined): Promise<Client> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: testDbUrl(),
    REDIS_URL: process.env.TEST_REDIS_URL!,
    LOG_LEVEL: 'silent',
    ...(key ? { FEEDBACK_API_KEY: key } : {}),
  };
  const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliJs, 'mcp'], env, stderr: 'pipe' }));
  return client;
}

const READ_SCOPES = ALL_SCOPES.filter((s) => s.endsWith(':read')) as Scope[];

describe('feedback-service mcp (stdio)', () => {
  it('lists the tools of the key, pages a list tool, and refuses a write to a read key naming the scope', async () => {
    const s = await scenario(db, { responseCount: 5 });
    const reader = await spawnMcp(await keyFor(db, [s.ws], { scopes: READ_SCOPES }));
    const all = await spawnMcp(s.key);
    const readTools = (await reader.listTools()).tools.map((tool) => tool.name);
    const allTools = (await all.listTools()).tools.map((tool) => tool.name);
    expect(readTools).toContain('listResponses');
    expect(readTools).not.toContain('createResponse');
    expect(allTools).toEqual(expect.arrayContaining(['listResponses', 'createResponse', 'summarizeFormFeedback']));

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = (await reader.callTool({
        name: 'listResponses',
        arguments: { workspace_id: s.ws, limit: 2, ...(cursor ? { cursor } : {}) },
      })) as CallToolResult;
      expect(res.isError).toBeFalsy();
      const page = res.structuredContent as { data: Array<{ id: string }>; links: { next: string | null } };
      seen.push(...page.data.map((r) => r.id));
      cursor = page.links.next ? new URL(page.links.next).searchParams.get('cursor') : null;
    } while (cursor);
    expect(seen.sort()).toEqual(s.responses.map((r) => r.id).sort());

    const refused = reader.callTool({ name: 'createResponse', arguments: { workspace_id: s.ws, body: { form_id: s.nps, answers: [] } } });
    await expect(refused).rejects.toBeInstanceOf(McpError);
    await expect(refused).rejects.toMatchObject({ code: SCOPE_ERROR_CODE, message: expect.stringContaining('responses:write') });
  }, 60_000); // two children, each building the app (the validator compiles openapi/) on a busy 2-core machine

  it('answers 429 as a tool error once the key budget is spent', async () => {
    const s = await scenario(db, { responseCount: 1 });
    const client = await spawnMcp(await keyFor(db, [s.ws], { rateLimitPerMinute: 2 }));
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = (await client.callTool({ name: 'getWorkspace', arguments: { workspace_id: s.ws } })) as CallToolResult;
      statuses.push(res.isError ? (res.structuredContent as { status: number }).status : 200);
    }
    expect(statuses).toEqual([200, 200, 429]);
  }, 60_000);

  it('exits with a line naming FEEDBACK_API_KEY when the key is missing', async () => {
    await expect(spawnMcp(undefined)).rejects.toThrow();
  });
});
