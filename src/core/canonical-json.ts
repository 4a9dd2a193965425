/**
 * Canonical JSON: the one serialization used where equal content must give equal text (the
 * Idempotency-Key body fingerprint, docs/writes-keys-limits.md, "Idempotency"; the form schema's strong
 * ETag, docs/api-rules.md, "Conditional requests").
 */

/**
 * JSON with object keys sorted at every level (code-unit order) and `undefined` members left out, so
 * `{"a":1,"b":2}` and `{"b":2,"a":1}` are one text. `undefined` alone (or in an array) is `null`.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
