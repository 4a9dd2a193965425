/**
 * The active trace as the rest of the service sees it, without loading OpenTelemetry (docs/operations.md, "Traces").
 * With traces off (no `OTEL_EXPORTER_OTLP_ENDPOINT`) nothing is installed here and every function below is a check of
 * one variable: no OpenTelemetry module is loaded and nothing is paid. With traces on, src/platform/tracing.ts installs
 * a TraceContextSource at start, before the first request: the outbox stores the write's `traceparent` with its event
 * (core/webhooks/outbox.ts), the delivery worker continues that trace (delivery/attempt.ts), and log lines carry the
 * active span's ids (platform/logger.ts).
 */

/** The ids a log line carries inside a trace (hex, as the W3C `traceparent` spells them). */
export interface TraceLogFields {
  trace_id: string;
  span_id: string;
}

/** What a tracer offers the service; installed once by src/platform/tracing.ts. */
export interface TraceContextSource {
  /** The W3C `traceparent` header value of the active span (`00-<trace id>-<span id>-<flags>`), or undefined outside a span. */
  traceparent(): string | undefined;
  /** The active span's ids, or undefined outside a span. */
  logFields(): TraceLogFields | undefined;
  /**
   * Runs `fn` in a new span of a background job (kind CONSUMER) named `name` that continues `traceparent` (its parent,
   * and a span link to it), or starts a trace of its own when `traceparent` is undefined or malformed; the span ends when
   * `fn` settles and records its error.
   */
  inJobSpan<T>(name: string, traceparent: string | undefined, attributes: Readonly<Record<string, string | number>>, fn: () => Promise<T>): Promise<T>;
}

let source: TraceContextSource | undefined;

/** The parts of a W3C `traceparent` header value, version 00 (https://www.w3.org/TR/trace-context/#traceparent-header). */
export interface TraceparentParts {
  /** 32 lower-case hex digits, not all zeros. */
  traceId: string;
  /** 16 lower-case hex digits, not all zeros. */
  spanId: string;
  /** The flags byte: bit 0 is "sampled". */
  traceFlags: number;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `00-<trace id>-<span id>-<flags as 2 hex digits>`. */
export function formatTraceparent(p: TraceparentParts): string {
  return `00-${p.traceId}-${p.spanId}-${(p.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The parts of a `traceparent`; undefined when it is not version 00's form or an id is all zeros (invalid). */
export function parseTraceparent(value: string): TraceparentParts | undefined {
  const m = TRACEPARENT.exec(value);
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return undefined;
  return { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16) };
}

/** Installs the tracer's source (once, at start; undefined uninstalls it, for tests). */
export function setTraceContextSource(next: TraceContextSource | undefined): void {
  source = next;
}

/** True when a tracer is installed (traces on). */
export function tracingInstalled(): boolean {
  return source !== undefined;
}

/** The `traceparent` of the active span; undefined with traces off or outside a span. */
export function activeTraceparent(): string | undefined {
  return source?.traceparent();
}

/** The active span's `trace_id` and `span_id` for a log line; undefined with traces off or outside a span. */
export function traceLogFields(): TraceLogFields | undefined {
  return source?.logFields();
}

/**
 * Runs a background job's `fn` in a span continuing `traceparent` (TraceContextSource.inJobSpan); with traces off, runs
 * `fn` as it is.
 * @param attributes span attributes: ids and counts only, never a secret, an email address or an answer.
 */
export function inJobSpan<T>(
  name: string,
  traceparent: string | undefined,
  attributes: Readonly<Record<string, string | number>>,
  fn: () => Promise<T>,
): Promise<T> {
  return source ? source.inJobSpan(name, traceparent, attributes, fn) : fn();
}
