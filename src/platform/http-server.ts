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

/** An HTTP server for `app` with the header limit and the client-error handler installed. */
export function createHttpServer(app: Express, logger: Logger): http.Server {
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app);
  server.on('clientError', clientErrorHandler(logger));
  return server;
}
