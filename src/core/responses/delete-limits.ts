/**
 * Defaults of the bulk delete's settings (docs/api-rules.md, "Deleting responses"; config.ts reads the environment):
 * `RESPONSE_DELETE_INLINE_MAX`, the largest bulk delete run in the request (more run on the worker), and
 * `RESPONSE_DELETE_BATCH_SIZE`, the responses one transaction of a job or of the retention deletes.
 */
export const RESPONSE_DELETE_DEFAULTS = { inlineMax: 1000, batchSize: 500 } as const;
