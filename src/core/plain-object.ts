/** The one test for a JSON object (not null, not an array): answers, row data and fixture documents use it. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
