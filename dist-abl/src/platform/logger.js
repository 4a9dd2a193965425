"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.createLogger = createLogger;
/**
 * JSON logs (pino). Every line of a request carries its `request_id`; API keys and other secrets are
 * redacted wherever they could appear (headers, bodies are never logged).
 */
const pino_1 = __importDefault(require("pino"));
/** A pino logger at `level`, writing to stdout (asynchronously) or to `destination` (tests capture the log with one). */
function createLogger(level, destination) {
    const options = {
        level,
        base: { service: 'feedback-service' },
        redact: {
            paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'secret', '*.secret'],
            censor: '[redacted]',
        },
    };
    // stdout written asynchronously in batches (not one write per line); pino flushes it on exit.
    return (0, pino_1.default)(options, destination ?? pino_1.default.destination({ dest: 1, sync: false }));
}
//# sourceMappingURL=logger.js.map