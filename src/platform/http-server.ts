/**
 * The Node HTTP server around the app: request line and headers limited to 16 KiB, and the errors
 * Node rejects before Express sees a request (oversized headers, malformed requests) answered in the
 * error envelope with a `request_id` (docs/writes-keys-limits.md, "Limits, bad bytes and secrets"): 431 headers_too_large, else 400 validation_error.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { AppError, errors } from '../core/errors';
import type { Logger } from './logger';
import { newRequestId } from './request-id';

/** Request line plus headers, bytes (docs/writes-keys-limits.md, "Limits, bad bytes and secrets"). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** Writes `error` as a complete HTTP/1.1 response on a raw socket and closes it. */
function writeRawError(socket: Socket, error: AppError): void {
  const requestId = newRequestId();
  const body = JSON.stringify({ error: { code: error.code, message: error.message, status: error.status }, request_id: requestId });
  const reason = http.STATUS_CODES[error.status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'X-API-Style: A\r\n' +
      'X-Content-Type-Options: nosniff\r\n' +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/** The `clientError` handler: envelope answers for requests Node refused to parse. */
export function clientErrorHandler(logger: Logger): (err: NodeJS.ErrnoException, socket: Socket) => void {
  return (err, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      socket.destroy();
      return;
    }
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      writeRawError(socket, errors.headersTooLarge(MAX_HEADER_BYTES));
      return;
    }
    logger.debug({ code: err.code }, 'malformed HTTP request refused');
    writeRawError(socket, errors.invalid('header', 'request', 'The HTTP request is malformed.'));
  };
}

/** How long a client may take and how many connections it may hold (docs/operations.md, "Slow clients"). */
export interface HttpServerLimits {
  /** Request line and headers must arrive within this, ms. */
  httpHeadersTimeoutMs: number;
  /** The whole request, body included, must arrive within this, ms (not the answer: an export may stream longer). */
  httpRequestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this, ms. */
  httpKeepAliveTimeoutMs: number;
  /** Open connections per client address; 0: no cap. */
  connectionsPerAddress: number;
}

/** Seconds a client over the per-address connection cap is told to wait. */
export const CONNECTION_CAP_RETRY_AFTER_SECONDS = 1;

/** How long a connection over the cap may take to send its request before it is closed unanswered, ms. */
const REFUSED_CONNECTION_GRACE_MS = 1_000;

/**
 * Counts the open connections of each client address (the socket's address: behind a proxy, the proxy's) and
 * returns the connections over `cap`: their request is answered 429 and they are closed (createHttpServer).
 */
function capConnectionsPerAddress(server: http.Server, cap: number, logger: Logger): WeakSet<Socket> {
  const open = new Map<string, number>();
  const refused = new WeakSet<Socket>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const n = (open.get(address) ?? 0) + 1;
    if (n > cap) {
      logger.warn({ address, cap }, 'connection refused: too many open connections from this address');
      refused.add(socket);
      // No request within the grace: closed unanswered (a slow client does not get the headers timeout here).
      socket.setTimeout(REFUSED_CONNECTION_GRACE_MS, () => socket.destroy());
      return;
    }
    open.set(address, n);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return refused;
}

/** Answers a request of a connection over the cap: 429 rate_limit_exceeded with Retry-After, then closes it. */
function refuse(res: http.ServerResponse): void {
  const error = errors.rateLimited(CONNECTION_CAP_RETRY_AFTER_SECONDS);
  const requestId = newRequestId();
  const body = JSON.stringify({ error: { code: error.code, message: error.message, status: error.status }, request_id: requestId });
  res.shouldKeepAlive = false;
  res.writeHead(error.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    'X-API-Style': 'A',
    ...error.headers,
    Connection: 'close',
  });
  res.end(body);
}

/**
 * An HTTP server for `app` with the header limit, the client-error handler, the timeouts and the per-address
 * connection cap of `limits` installed (docs/operations.md, "Slow clients").
 */
export function createHttpServer(app: Express, logger: Logger, limits: HttpServerLimits): http.Server {
  const server = http.createServer({
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: limits.httpHeadersTimeoutMs,
    requestTimeout: limits.httpRequestTimeoutMs,
    keepAliveTimeout: limits.httpKeepAliveTimeoutMs,
    // Node checks the two request timeouts on this interval (default 30 s): check often enough that they hold.
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.httpHeadersTimeoutMs / 4))),
  });
  server.on('clientError', clientErrorHandler(logger));
  const refused = limits.connectionsPerAddress > 0 ? capConnectionsPerAddress(server, limits.connectionsPerAddress, logger) : undefined;
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (refused?.has(req.socket)) refuse(res);
    else app(req, res);
  });
  return server;
}
