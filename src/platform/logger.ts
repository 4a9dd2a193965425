/**
 * JSON logs (pino). Every line of a request carries its `request_id`; API keys and other secrets are
 * redacted wherever they could appear (headers, bodies are never logged).
 */
import pino, { type Logger } from 'pino';
import { traceLogFields, tracingInstalled } from '../core/trace-context';

export type { Logger };

/**
 * A pino logger at `level`, writing to stdout (asynchronously) or to `destination` (tests capture the log with one).
 * With traces on (installed before the logger is made: src/cli/preload.ts), every line written inside a span carries
 * its `trace_id` and `span_id` (docs/operations.md, "Traces"); with traces off the logger has no mixin at all, so a line
 * costs nothing more.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'feedback-service' },
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'secret', '*.secret'],
      censor: '[redacted]',
    },
    // pino assigns the line's fields into the mixin's object: a new one per line.
    ...(tracingInstalled() ? { mixin: () => traceLogFields() ?? {} } : {}),
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
