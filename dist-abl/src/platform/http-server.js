"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_HEADER_BYTES = void 0;
exports.clientErrorHandler = clientErrorHandler;
exports.createHttpServer = createHttpServer;
/**
 * The Node HTTP server around the app: request line and headers limited to 16 KiB, and the errors
 * Node rejects before Express sees a request (oversized headers, malformed requests) answered in the
 * error envelope with a `request_id` (CONTRACT section 7): 431 headers_too_large, else 400 validation_error.
 */
const node_http_1 = __importDefault(require("node:http"));
const errors_1 = require("../core/errors");
const request_id_1 = require("./request-id");
/** Request line plus headers, bytes (CONTRACT section 7). */
exports.MAX_HEADER_BYTES = 16 * 1024;
/** Writes `error` as a complete HTTP/1.1 response on a raw socket and closes it. */
function writeRawError(socket, error) {
    const requestId = (0, request_id_1.newRequestId)();
    const body = JSON.stringify({ error: { code: error.code, message: error.message, status: error.status }, request_id: requestId });
    const reason = node_http_1.default.STATUS_CODES[error.status] ?? 'Error';
    socket.end(`HTTP/1.1 ${error.status} ${reason}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'X-API-Style: A\r\n' +
        'Connection: close\r\n\r\n' +
        body);
}
/** The `clientError` handler: envelope answers for requests Node refused to parse. */
function clientErrorHandler(logger) {
    return (err, socket) => {
        if (!socket.writable || err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
            socket.destroy();
            return;
        }
        if (err.code === 'HPE_HEADER_OVERFLOW') {
            writeRawError(socket, errors_1.errors.headersTooLarge(exports.MAX_HEADER_BYTES));
            return;
        }
        logger.debug({ code: err.code }, 'malformed HTTP request refused');
        writeRawError(socket, errors_1.errors.invalid('header', 'request', 'The HTTP request is malformed.'));
    };
}
/** An HTTP server for `app` with the header limit and the client-error handler installed. */
function createHttpServer(app, logger) {
    const server = node_http_1.default.createServer({ maxHeaderSize: exports.MAX_HEADER_BYTES }, app);
    server.on('clientError', clientErrorHandler(logger));
    return server;
}
//# sourceMappingURL=http-server.js.map