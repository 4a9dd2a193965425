/**
 * The MCP endpoint of `serve` (docs/agents.md, "Over HTTP"): `POST /mcp`, the SDK's Streamable HTTP transport in its
 * stateless form (no session: each POST gets a new server and transport, answered as JSON), for the key of
 * `X-API-Key` or `Authorization: Bearer <key>`. Not part of the REST API, so not in openapi/ (as `/docs`); `GET` and
 * `DELETE` (a stream or a session to end, which a stateless server has not) are 405 with `Allow: POST`.
 *
 * Budgets: a missing, unknown, revoked or expired key is a 401 counted against the client address's budget, as on
 * the API. A POST holding only `tools/call` messages is not counted itself: each call is counted by the HTTP requests
 * it runs through the app (src/mcp/dispatch.ts), so a call costs what the same request over HTTP costs. Any other
 * message (initialize, tools/list, notifications) counts one request of the key's budget here, with the rate-limit
 * headers and, past the budget, a 429.
 */
import type { IncomingMessage } from 'node:http';
import express, { type Express, type Request, type Router } from 'express';
import { errors } from '../core/errors';
import type { KeyAuthenticator } from '../platform/auth/api-key-auth';
import { applyDecision, type RateLimiter } from '../platform/rate-limit';
import { inProcessDispatch } from './dispatch';

/**
 * The SDK and the server, loaded on the first MCP request: the SDK (with zod) takes about a second to load, which
 * every start of `serve`, every CLI command and every test file that builds the app would otherwise pay.
 */
let loaded: Promise<[typeof import('./server'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]> | undefined;
const loadMcp = () => (loaded ??= Promise.all([import('./server'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]));

/** Where `serve` answers MCP clients. */
export const MCP_PATH = '/mcp';

export interface McpEndpointOptions {
  /** The app the tool calls run through (the one this endpoint is mounted on). */
  app: Express;
  authenticate: KeyAuthenticator;
  limiter: RateLimiter;
  /** RATE_LIMIT_PER_MINUTE, for a key without a limit of its own. */
  rateLimitPerMinute: number;
}

/** The key's secret: `X-API-Key`, else the token of `Authorization: Bearer …`. */
export function mcpKeySecret(req: Request): string | undefined {
  const header = req.get('X-API-Key');
  if (header) return header;
  const bearer = /^Bearer[ \t]+(\S+)\s*$/i.exec(req.get('Authorization') ?? '');
  return bearer?.[1];
}

/** The body holds JSON-RPC `tools/call` messages only (one, or a batch). */
function onlyToolCalls(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.length > 0 && messages.every((m) => (m as { method?: unknown } | null)?.method === 'tools/call');
}

/** The router of MCP_PATH (mount it with `app.use(MCP_PATH, …)` before the API's authentication). */
export function mcpRouter(opts: McpEndpointOptions): Router {
  const r = express.Router();
  r.post('/', async (req, res) => {
    if (req.context.bodyError) throw req.context.bodyError;
    const secret = mcpKeySecret(req);
    const key = await opts.authenticate(req, res, secret);
    if (!onlyToolCalls(req.body)) applyDecision(res, await opts.limiter.consume('key', key.id, key.rateLimitPerMinute ?? opts.rateLimitPerMinute));
    const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await loadMcp();
    const server = createMcpServer({
      key,
      secret: secret!,
      dispatch: inProcessDispatch(opts.app, { remoteAddress: req.ip ?? '127.0.0.1', host: req.get('host'), https: req.protocol === 'https' }),
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The transport reads `req.auth` as the SDK's AuthInfo; ours is the key (unused by the tools: they close over it).
    await transport.handleRequest(req as unknown as IncomingMessage, res, req.body);
  });
  r.all('/', (req) => {
    throw errors.methodNotAllowed(req.method, ['POST']);
  });
  return r;
}
