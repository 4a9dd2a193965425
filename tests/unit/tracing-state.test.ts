/**
 * The decisions made before any OpenTelemetry module loads (docs/operations.md, "Traces"): when traces are asked for
 * (config.ts tracesRequested), on which Node (platform/tracing-state.ts, kept equal to the packages' `engines`), and what
 * the service's hooks do with traces off, and the `traceparent` codec the outbox and the worker share (core/trace-context.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { tracesRequested } from '../../src/config';
import { activeTraceparent, formatTraceparent, inJobSpan, parseTraceparent, traceLogFields, tracingInstalled } from '../../src/core/trace-context';
import { nodeSupportsTracing, TRACING_MIN_NODE } from '../../src/platform/tracing-state';

describe('tracesRequested', () => {
  it('is undefined without an OTLP endpoint', () => {
    expect(tracesRequested({})).toBeUndefined();
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ', OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
  });

  it('takes the endpoint (the traces-only one first) and the service name, feedback-service by default', () => {
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({ endpoint: 'http://c:4318', serviceName: 'feedback-service' });
    expect(
      tracesRequested({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:4318/v1/traces',
        OTEL_SERVICE_NAME: 'api',
      }),
    ).toEqual({ endpoint: 'http://t:4318/v1/traces', serviceName: 'api' });
  });

  it('is undefined with OTEL_SDK_DISABLED=true, whatever the endpoint', () => {
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'false' })).toMatchObject({ endpoint: 'http://c:4318' });
  });
});

describe('nodeSupportsTracing', () => {
  it.each([
    ['20.20.2', false],
    ['22.14.9', false],
    ['22.15.0', true],
    ['22.21.1', true],
    ['24.21.0', true],
    ['25.0.0', true],
  ])('%s: %s', (version, ok) => {
    expect(nodeSupportsTracing(version)).toBe(ok);
  });

  it('asks for the Node the installed OpenTelemetry packages declare in their engines', () => {
    const packages = ['sdk-node', 'instrumentation-http', 'instrumentation-pg', 'instrumentation-ioredis'];
    for (const p of packages) {
      const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../node_modules/@opentelemetry', p, 'package.json'), 'utf8')) as {
        engines: { node: string };
      };
      expect(`${p} ${pkg.engines.node}`).toBe(`${p} >=${TRACING_MIN_NODE}`);
    }
  });
});

describe('the trace hooks with traces off', () => {
  it('have no trace, and run a job span as the job alone', async () => {
    expect(tracingInstalled()).toBe(false);
    expect(activeTraceparent()).toBeUndefined();
    expect(traceLogFields()).toBeUndefined();
    await expect(inJobSpan('job', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', {}, async () => 42)).resolves.toBe(42);
  });
});

describe('the traceparent codec', () => {
  const value = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('reads and writes version 00', () => {
    expect(parseTraceparent(value)).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
    expect(formatTraceparent(parseTraceparent(value)!)).toBe(value);
    expect(formatTraceparent({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0 })).toBe(value.replace(/01$/, '00'));
  });

  it.each([
    ['another version', value.replace(/^00/, '01')],
    ['upper case', value.toUpperCase()],
    ['a short span id', value.replace('b7ad6b7169203331', 'b7ad6b71')],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-b7ad6b7169203331-01`],
    ['an all-zero span id', `00-0af7651916cd43dd8448eb211c80319c-${'0'.repeat(16)}-01`],
    ['anything else', 'null'],
  ])('refuses %s', (_what, v) => {
    expect(parseTraceparent(v)).toBeUndefined();
  });
});
