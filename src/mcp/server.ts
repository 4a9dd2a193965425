/**
 * The MCP server for agents (docs/agents.md), built with the official SDK's low-level `Server`, one per connection
 * (stdio) or per HTTP request (the stateless Streamable HTTP transport at `/mcp`). Safe by construction:
 * - the tools are the operations of openapi/ (src/mcp/tools.ts) and the task tools (src/mcp/task-tools.ts); a key is
 *   shown only the tools its scopes allow (`x-required-scope`), and a call beyond them is a JSON-RPC error naming the
 *   scope (code SCOPE_ERROR_CODE), before anything runs;
 * - every call is one HTTP request (or a few, for a task tool) through the app's own pipeline, in process
 *   (src/mcp/dispatch.ts), with the caller's key: its rate limit, workspace access, validation, idempotency and the
 *   log line and usage count apply exactly as for HTTP; results are the Style A answer (`X-API-Style: A`);
 * - an HTTP error (400, 403, 404, 409, 429 …) is a tool result with `isError: true` and the API's error body (plus
 *   `status`, and `retry_after` on a 429), so an agent reads what to fix; results never hold a secret (secrets.ts).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApiKeyMeta } from '../core/api-keys/api-keys.store';
import type { Scope } from '../core/scopes';
import { loadOpenApiDocument } from '../platform/openapi';
import type { Dispatch, DispatchAnswer, DispatchRequest } from './dispatch';
import { redactSecrets } from './secrets';
import { nextCursor, TASK_TOOLS, type CallOperation, type TaskTool } from './task-tools';
import { operationTools, type OperationTool } from './tools';

/** The JSON-RPC error code of a call beyond the key's scopes (in the range JSON-RPC leaves to servers). */
export const SCOPE_ERROR_CODE = -32003;

type CatalogTool = ({ kind: 'operation' } & OperationTool) | ({ kind: 'task' } & TaskTool);

let catalog: Map<string, CatalogTool> | undefined;

/** Every tool of the service by name, built once from openapi/ (operation tools first, then the task tools). */
export function toolCatalog(): Map<string, CatalogTool> {
  if (!catalog) {
    const all: CatalogTool[] = [
      ...operationTools(loadOpenApiDocument()).map((t) => ({ kind: 'operation' as const, ...t })),
      ...TASK_TOOLS.map((t) => ({ kind: 'task' as const, ...t })),
    ];
    catalog = new Map(all.map((t) => [t.name, t]));
  }
  return catalog;
}

/** The first scope of `needed` the key lacks, or undefined. */
const missingScope = (key: ApiKeyMeta, needed: readonly Scope[]) => needed.find((s) => !key.scopes.includes(s));

/** The tool is listed for the key: it has every scope, or the operation lets a key act on its own id without it. */
export function toolAllowed(key: ApiKeyMeta, tool: CatalogTool): boolean {
  return missingScope(key, tool.scopes) === undefined || (tool.kind === 'operation' && tool.ownKeyParam !== undefined);
}

export interface McpServerOptions {
  /** The calling key, as authenticated (its scopes decide which tools are listed and callable). */
  key: ApiKeyMeta;
  /** The key's secret: each dispatched request sends it as `X-API-Key`, so the pipeline authenticates it again. */
  secret: string;
  /** Runs one HTTP request through the app (inProcessDispatch). */
  dispatch: Dispatch;
}

/** A new MCP server for one key; connect it to a transport. */
export function createMcpServer(opts: McpServerOptions): Server {
  const doc = loadOpenApiDocument();
  const info = doc.info as { version?: string } | undefined;
  const server = new Server(
    { name: 'feedback-service', version: info?.version ?? '0' },
    {
      capabilities: { tools: {} },
      instructions:
        'Tools of the feedback-service API (openapi/), limited to the scopes of your API key. Results are Style A ' +
        'JSON; lists page with `cursor` (the cursor of `links.next`, also given as next_cursor). Writes take an ' +
        '`idempotency_key` to be safe to retry. An error result carries the API error body and its HTTP status.',
    },
  );
  const tools = toolCatalog();
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].filter((t) => toolAllowed(opts.key, t)).map(listed),
  }));
  const callOperation: CallOperation = async (name, args) => {
    const tool = checkedTool(opts.key, tools, name);
    if (tool.kind !== 'operation') throw new McpError(ErrorCode.InvalidParams, `${name} is not an API operation`);
    return opts.dispatch(requestOf(tool, args, opts.secret));
  };
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const tool = checkedTool(opts.key, tools, name);
    if (tool.kind === 'operation') return resultOf(await opts.dispatch(requestOf(tool, args, opts.secret)));
    const outcome = await tool.run(args, callOperation);
    return outcome.ok ? success(outcome.body) : resultOf(outcome.answer);
  });
  return server;
}

/** The tool `name`, when the key may call it. */
function checkedTool(key: ApiKeyMeta, tools: Map<string, CatalogTool>, name: string): CatalogTool {
  const tool = tools.get(name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const missing = missingScope(key, tool.scopes);
  // An operation with x-own-key-param is checked by the pipeline (the key's own id needs no scope there).
  if (missing !== undefined && !(tool.kind === 'operation' && tool.ownKeyParam !== undefined)) {
    throw new McpError(SCOPE_ERROR_CODE, `insufficient_scope: the tool ${name} needs the scope ${missing}, which this API key does not have.`, {
      code: 'insufficient_scope',
      scope: missing,
    });
  }
  return tool;
}

/** A tool as `tools/list` shows it; reads are marked read-only. */
function listed(tool: CatalogTool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    annotations: { readOnlyHint: tool.kind === 'task' || tool.method === 'GET' },
  };
}

/**
 * The HTTP request of an operation tool call: path parameters into the template, the others into the query (an array
 * repeats the parameter), `body` as the JSON body, `idempotency_key` as `Idempotency-Key`.
 * @throws McpError InvalidParams for an argument the tool does not have or a missing path parameter.
 */
export function requestOf(tool: OperationTool, args: Record<string, unknown>, secret: string): DispatchRequest {
  const known = new Set([...tool.params.map((p) => p.name), 'body', 'idempotency_key']);
  const unknown = Object.keys(args).filter((k) => !known.has(k) || (k === 'body' && !tool.hasBody));
  if (unknown.length > 0) throw new McpError(ErrorCode.InvalidParams, `${tool.name} has no argument ${unknown.map((k) => `\`${k}\``).join(', ')}`);
  let path = tool.template;
  const query = new URLSearchParams();
  for (const p of tool.params) {
    const value = args[p.name];
    if (value === undefined || value === null) {
      if (p.in === 'path') throw new McpError(ErrorCode.InvalidParams, `${tool.name}: \`${p.name}\` is required`);
      continue;
    }
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(asText(value)));
    else for (const v of Array.isArray(value) ? (value as unknown[]) : [value]) query.append(p.name, asText(v));
  }
  const headers: Record<string, string> = { 'x-api-key': secret, 'x-api-style': 'A', accept: 'application/json' };
  if (typeof args.idempotency_key === 'string') headers['idempotency-key'] = args.idempotency_key;
  const qs = query.toString();
  return { method: tool.method, url: qs ? `${path}?${qs}` : path, headers, body: tool.hasBody ? args.body : undefined };
}

/** An argument as it goes in a URL: strings as they are, numbers and booleans as JSON writes them, objects as JSON. */
const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A successful result: the Style A answer as text and as structured content, and the next page's cursor when there is one. */
function success(body: Record<string, unknown>): CallToolResult {
  const clean = redactSecrets(body) as Record<string, unknown>;
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(clean) }];
  const cursor = isObject(clean.links) ? nextCursor(clean.links) : null;
  if (cursor) content.push({ type: 'text', text: `More: call again with cursor=${JSON.stringify(cursor)}.` });
  return { content, structuredContent: clean };
}

/** The tool result of an HTTP answer: success, or `isError` with the API's error body, `status` and `retry_after`. */
function resultOf(answer: DispatchAnswer): CallToolResult {
  if (answer.status < 400) return success(isObject(answer.body) ? answer.body : { status: answer.status });
  const retryAfter = answer.headers['retry-after'];
  const payload = redactSecrets({
    status: answer.status,
    ...(retryAfter !== undefined ? { retry_after: Number(retryAfter) } : {}),
    ...(isObject(answer.body) ? answer.body : { body: answer.body }),
  }) as Record<string, unknown>;
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload };
}
