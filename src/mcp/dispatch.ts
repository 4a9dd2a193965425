/**
 * In-process HTTP dispatch (docs/agents.md, "How a tool call runs"): a tool call of the MCP server becomes one HTTP
 * request that runs through the app's whole pipeline (authentication, the key's rate limit, workspace and scope
 * checks, the OpenAPI validator, idempotency, the handlers, the answer hooks, the log line and the usage count), with
 * no socket and no port. The request is a real `IncomingMessage` and the answer a real `ServerResponse`, attached to
 * a socket that only keeps the bytes written; the answer's HTTP/1.1 bytes are then read back (status, headers, body,
 * chunked or not).
 */
import { IncomingMessage, ServerResponse, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';

/** One request to dispatch. */
export interface DispatchRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path and query string, e.g. `/api/v1/workspaces/ws_1/responses?limit=5`. */
  url: string;
  /** Header names in any case; `content-type` and `content-length` are set for a body. */
  headers: Record<string, string>;
  /** JSON body, sent as `application/json`; undefined: no body. */
  body?: unknown;
}

/** What the app answered: the status, the headers (names in lower case) and the body (parsed when it is JSON). */
export interface DispatchAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** Runs one request through the app and resolves with its answer. */
export type Dispatch = (request: DispatchRequest) => Promise<DispatchAnswer>;

/** The socket under an in-process request: keeps what the response writes, reads nothing. */
class KeepingSocket extends Duplex {
  readonly chunks: Buffer[] = [];
  readonly remotePort = 0;
  constructor(
    readonly remoteAddress: string,
    /** Read by `req.protocol`: the links of an answer say https when the MCP client came over TLS. */
    readonly encrypted: boolean,
  ) {
    super();
  }
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.chunks.push(chunk);
    done();
  }
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
}

/** Who the in-process requests come from, as the app sees them. */
export interface DispatchOrigin {
  /** The client address (`req.ip`): the MCP client's, so logs name the caller; `127.0.0.1` for the stdio server. */
  remoteAddress: string;
  /** The `Host` the answers' links are built on (the MCP request's own), default `localhost`. */
  host?: string | undefined;
  /** The MCP request came over TLS (its `req.protocol`): links say https. */
  https?: boolean;
}

/** A Dispatch into `app` (an Express app or any request listener), its requests coming from `origin`. */
export function inProcessDispatch(app: RequestListener, origin: DispatchOrigin): Dispatch {
  return (request) =>
    new Promise<DispatchAnswer>((resolve, reject) => {
      const socket = new KeepingSocket(origin.remoteAddress, origin.https === true);
      const req = new IncomingMessage(socket as unknown as Socket);
      const body = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
      const headers: Record<string, string> = { host: origin.host ?? 'localhost' };
      for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
      if (body) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(body.length);
      }
      req.method = request.method;
      req.url = request.url;
      req.httpVersion = '1.1';
      req.httpVersionMajor = 1;
      req.httpVersionMinor = 1;
      req.headers = headers;
      req.rawHeaders = Object.entries(headers).flat();
      if (body) req.push(body);
      req.push(null);
      req.complete = true;
      const res = new ServerResponse(req);
      res.assignSocket(socket as unknown as Socket);
      res.once('finish', () => {
        res.detachSocket(socket as unknown as Socket);
        // As Node's server does after 'finish': the listeners of 'close' (the usage count, the log line) run too.
        process.nextTick(() => res.emit('close'));
        try {
          resolve(readAnswer(Buffer.concat(socket.chunks)));
        } catch (err) {
          reject(err as Error);
        }
      });
      try {
        app(req, res);
      } catch (err) {
        reject(err as Error);
      }
    });
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** Reads an HTTP/1.1 answer's bytes: status line, headers, body (de-chunked; JSON parsed when its type says JSON). */
export function readAnswer(raw: Buffer): DispatchAnswer {
  const end = raw.indexOf(CRLF2);
  if (end < 0) throw new Error('in-process answer without a complete head');
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`in-process answer with a bad status line: ${statusLine}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let rest = raw.subarray(end + CRLF2.length);
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) rest = dechunk(rest);
  const text = rest.toString('utf8');
  const json = /^application\/(?:[\w.+-]+\+)?json\b/i.test(headers['content-type'] ?? '');
  return { status, headers, body: json && text !== '' ? (JSON.parse(text) as unknown) : text };
}

/** The body of a chunked transfer coding (RFC 9112 section 7.1), trailers ignored. */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
