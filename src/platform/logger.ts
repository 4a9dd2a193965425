/**
 * JSON logs (pino). Every line of a request carries its `request_id`; API keys and other secrets are
 * redacted wherever they could appear (headers, bodies are never logged).
 */
import pino, { type Logger } from 'pino';

export type { Logger };

/** A pino logger at `level`, writing to stdout (asynchronously) or to `destination` (tests capture the log with one). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'feedback-service' },
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'secret', '*.secret'],
      censor: '[redacted]',
    },
  };
  // stdout written asynchronously in batches (not one write per line); pino flushes it on exit.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}

/**
 * Writes `text` as it is (no JSON) to the logger's stream, after every line logged so far: the log is
 * written asynchronously, so text written to stdout directly could land before or between its lines.
 */
export function writeAfterLog(logger: Logger, text: string): void {
  (logger as unknown as Record<symbol, { write(chunk: string): unknown }>)[pino.symbols.streamSym]!.write(text);
}
