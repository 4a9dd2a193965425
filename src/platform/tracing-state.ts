/**
 * Whether this process exports traces, decided once before the service's modules load (src/cli/preload.ts), and what
 * it says about it in its log at start (docs/operations.md, "Traces"). Loads no OpenTelemetry module: with traces off
 * or unsupported none is ever loaded.
 */
import type { Logger } from './logger';

/**
 * The oldest Node the OpenTelemetry packages we use support (`engines` of `@opentelemetry/sdk-node` and the
 * instrumentations: `>=22.15.0`; tests/unit/tracing-state.test.ts keeps the two equal).
 */
export const TRACING_MIN_NODE = '22.15.0';

export type TracingState =
  | { readonly state: 'off' }
  | { readonly state: 'on'; readonly endpoint: string; readonly serviceName: string }
  /** Asked for on a Node older than TRACING_MIN_NODE: the process runs without traces. */
  | { readonly state: 'unsupported'; readonly endpoint: string; readonly node: string };

let current: TracingState = { state: 'off' };
let shutdown: (() => Promise<void>) | undefined;

/** True when `version` (`process.versions.node`, e.g. `20.20.2`) is at least TRACING_MIN_NODE. */
export function nodeSupportsTracing(version: string): boolean {
  const have = version.split('.').map(Number);
  const need = TRACING_MIN_NODE.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    const h = have[i] ?? 0;
    const n = need[i]!;
    if (h !== n) return h > n;
  }
  return true;
}

/**
 * Records the decision (src/cli/preload.ts; src/platform/tracing.ts passes the SDK's shutdown, which flushes the spans
 * not yet exported).
 */
export function setTracingState(state: TracingState, stop?: () => Promise<void>): void {
  current = state;
  shutdown = stop;
}

/** The decision of this process. */
export function tracingState(): TracingState {
  return current;
}

/**
 * Logs the decision once at start, by `serve` (src/server.ts) or `worker`: an info line with the endpoint when traces
 * are exported, ONE warning when they were asked for on a Node too old for them, nothing when they are off.
 */
export function logTracingState(logger: Logger): void {
  const s = current;
  if (s.state === 'on') logger.info({ endpoint: s.endpoint, serviceName: s.serviceName }, 'exporting traces over OTLP/HTTP');
  if (s.state === 'unsupported') {
    logger.warn(
      { endpoint: s.endpoint, node: s.node, needs: `>=${TRACING_MIN_NODE}` },
      `OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry packages need Node ${TRACING_MIN_NODE} or newer and this is Node ${s.node}: running without traces (docs/operations.md, "Traces")`,
    );
  }
}

/** Exports the spans not yet sent and stops the tracer (before the process exits); resolves at once with traces off. */
export async function stopTracing(): Promise<void> {
  const stop = shutdown;
  shutdown = undefined;
  if (stop) await stop().catch(() => undefined);
}
