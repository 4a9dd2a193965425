/**
 * OpenTelemetry traces over OTLP (docs/operations.md, "Traces"). Loaded by src/cli/preload.ts only when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set, on Node >= 22.15, before express, pg and ioredis are first required: the
 * instrumentations patch those modules as they load. Nothing else imports this module (with traces off no OpenTelemetry
 * module is ever loaded); the service reaches the tracer through core/trace-context.ts, which this module installs.
 *
 * What is recorded, and what never is:
 * - one SERVER span per request (HTTP instrumentation), named `METHOD template` by the openapi/ path template
 *   (`GET /api/v1/workspaces/{workspace_id}/responses`), with the request's style, operation id, key id, workspace id and
 *   request id; its URL attributes go through the log's redaction (http-log.ts, redactUrl), so a dashboard or email-link
 *   token or a secret query value never leaves the process; headers and bodies are not recorded;
 * - no span of Express's own: the Express instrumentation is not loaded. Its middleware and router layer spans would add
 *   a dozen spans per request that say less than the log line, and even with every layer type ignored it wraps each
 *   layer and builds the layer's route and metadata on every request; with its one remaining span (the route handler)
 *   it cost about 4 % of a traced list request's CPU (a profile with bench/profile-steps.ts --otlp: 3 % in its layer
 *   wrappers, and a quarter of the spans to make and export), while the server span already carries the route
 *   (named by the openapi/ template below; docs/performance.md, "Traces");
 * - a CLIENT span per query (pg instrumentation): the statement text with its `$1` placeholders, never the values
 *   (`enhancedDatabaseReporting` stays off); a span per Redis command (ioredis instrumentation) holding the command
 *   name only (the default serializer would record keys and arguments); both only inside a trace (`requireParentSpan`),
 *   so the worker's polling and other background queries make no traces of their own;
 * - the webhook attempt's CONSUMER span (delivery/attempt.ts through core/trace-context.ts inJobSpan), continuing the
 *   trace of the write that recorded the event, and its outgoing POST, whose `traceparent` header the HTTP
 *   instrumentation sets, so a receiver that traces joins the same trace.
 * Sampling, batching, headers and the protocol follow the standard `OTEL_*` variables, read by the SDK. What tracing every
 * request costs, where that CPU goes (the server span about half, the export a fifth to two fifths) and the settings that
 * did not lower it: docs/performance.md, "Traces (issue 32)" (measured with bench/trace-cpu.ts).
 */
import { IncomingMessage } from 'node:http';
import { context, isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type SpanContext } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { Request } from 'express';
import type { TracesSetting } from '../config';
import { formatTraceparent, parseTraceparent, setTraceContextSource, type TraceContextSource, type TraceLogFields } from '../core/trace-context';
import { PROBE_PATHS, redactUrl } from './http-log';
import { setTracingState } from './tracing-state';

/** The attributes of a server span that hold the request's URL or part of it (old and stable HTTP conventions). */
const URL_ATTRIBUTES = ['http.target', 'http.url', 'url.full', 'url.path', 'url.query'] as const;

/** A URL attribute's value with the log's redaction applied (tokens in paths, secret query values). */
function redactedAttribute(name: (typeof URL_ATTRIBUTES)[number], value: string): string {
  if (name === 'url.query') return redactUrl(`/?${value.replace(/^\?/, '')}`).slice(2);
  if (name === 'http.url' || name === 'url.full') {
    const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(.*)$/i.exec(value);
    return m ? `${m[1]}${redactUrl(m[2] || '/')}` : redactUrl(value);
  }
  return redactUrl(value);
}

/** Applies the log's redaction to the span's URL attributes (server and client spans). */
function redactUrlAttributes(span: Span): void {
  const attributes = (span as unknown as { attributes?: Attributes }).attributes ?? {};
  for (const name of URL_ATTRIBUTES) {
    const value = attributes[name];
    if (typeof value === 'string') span.setAttribute(name, redactedAttribute(name, value));
  }
}

/**
 * Names the server span after the request's openapi/ template (off the API: its Express route) and adds what the
 * pipeline decided (request-context.ts):
 * called by the HTTP instrumentation once the answer is finished, just before the span ends.
 */
function annotateServerSpan(span: Span, req: Request): void {
  const ctx = req.context as Request['context'] | undefined;
  if (!ctx) return;
  const method = req.method;
  const operation = ctx.operation ?? ctx.match?.operations.get(method === 'HEAD' ? 'GET' : method);
  // Off the API (the form and dashboard pages), the Express route that answered (`/d/:token`): never the path itself,
  // which holds a link's token.
  const routePath = (req.route as { path?: unknown } | undefined)?.path;
  const template = operation?.template ?? ctx.match?.template ?? (typeof routePath === 'string' ? routePath : undefined);
  if (template) {
    span.updateName(`${method} ${template}`);
    span.setAttribute('http.route', template);
  }
  const extra: Attributes = { 'feedback.request_id': ctx.requestId };
  if (operation?.operationId) extra['feedback.operation_id'] = operation.operationId;
  if (ctx.style) extra['feedback.api_style'] = ctx.style;
  // The key's id (`key_…`), never its secret.
  if (ctx.auth) extra['feedback.api_key_id'] = ctx.auth.id;
  if (ctx.workspaceId) extra['feedback.workspace_id'] = ctx.workspaceId;
  if (ctx.errorCode) extra['feedback.error_code'] = ctx.errorCode;
  span.setAttributes(extra);
}

/** The instrumentations, configured as the module docstring says. */
function instrumentations() {
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => PROBE_PATHS.has((req.url ?? '').split('?')[0]!),
      // Outgoing calls (the webhook POST) only inside a trace.
      requireParentforOutgoingSpans: true,
      applyCustomAttributesOnSpan: (span, request) => {
        redactUrlAttributes(span);
        // A server span's request is an IncomingMessage (Express's request inherits from it); a client span's is not.
        if (request instanceof IncomingMessage) annotateServerSpan(span, request as Request);
      },
    }),
    new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
  ];
}

/** The source core/trace-context.ts hands to the service. */
function contextSource(): TraceContextSource {
  const tracer = trace.getTracer('feedback-service');
  const activeSpanContext = (): SpanContext | undefined => {
    const sc = trace.getSpan(context.active())?.spanContext();
    return sc && isSpanContextValid(sc) ? sc : undefined;
  };
  return {
    traceparent() {
      const sc = activeSpanContext();
      return sc ? formatTraceparent(sc) : undefined;
    },
    logFields(): TraceLogFields | undefined {
      const sc = activeSpanContext();
      return sc ? { trace_id: sc.traceId, span_id: sc.spanId } : undefined;
    },
    inJobSpan(name, traceparent, attributes, fn) {
      const parts = traceparent === undefined ? undefined : parseTraceparent(traceparent);
      const parent: SpanContext | undefined = parts && { ...parts, isRemote: true };
      const parentContext = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
      const options = { kind: SpanKind.CONSUMER, attributes, links: parent ? [{ context: parent }] : [] };
      return tracer.startActiveSpan(name, options, parentContext, async (span) => {
        try {
          return await fn();
        } catch (e) {
          span.recordException(e as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
          throw e;
        } finally {
          span.end();
        }
      });
    },
  };
}

/**
 * Starts the SDK (the OTLP exporter, sampler, propagators and batching of the `OTEL_*` variables; `service.name` from the
 * setting; no metrics or logs),
 * registers the instrumentations and installs the trace context source. Call once, before express, pg or ioredis is
 * required (src/cli/preload.ts).
 */
export function startTracing(setting: TracesSetting): void {
  const sdk = new NodeSDK({
    serviceName: setting.serviceName,
    instrumentations: instrumentations(),
    // Traces only: metrics stay Prometheus's (/metrics) and logs pino's (stdout); the SDK would otherwise set up OTLP
    // exporters of both from the same endpoint.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  setTraceContextSource(contextSource());
  setTracingState({ state: 'on', endpoint: setting.endpoint, serviceName: setting.serviceName }, () => sdk.shutdown());
}
