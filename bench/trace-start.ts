/**
 * The first import of bench/serve.ts: an `app` child started with `OTEL_EXPORTER_OTLP_ENDPOINT` exports traces exactly
 * as `feedback-service serve` would (src/cli/preload.ts startTracesFor: the instrumentations registered before express,
 * pg and ioredis load). Without the variable nothing is loaded, as in `serve`.
 */
import { startTracesFor } from '../src/cli/preload';

if (process.argv[2] === 'app') startTracesFor('serve');
