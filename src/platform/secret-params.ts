/**
 * The one rule for which query parameters can hold a secret (docs/writes-keys-limits.md, "Limits, bad bytes and
 * secrets"): the request log redacts their values (http-log.ts) and the API refuses an API key among them
 * (auth/api-key-auth.ts, refuseKeyInQuery).
 */

const NOT_ALNUM = /[^a-z0-9]/g;

/**
 * A query parameter name as the rule compares it: percent-decoded, lower case, letters and digits only, so
 * `X-API-Key`, `x_api_key`, `apiKey` and `API%5FKEY` all read `xapikey` or `apikey`.
 */
export function normalizedParamName(raw: string): string {
  let name = normalized.get(raw);
  if (name === undefined) {
    name = normalize(raw);
    // Names come from clients: a bounded memo (the same few names come with every request of a list).
    if (normalized.size >= 256) normalized.clear();
    normalized.set(raw, name);
  }
  return name;
}

const normalized = new Map<string, string>();

function normalize(raw: string): string {
  // Without `%` decoding changes nothing, and a `+` (a space) is dropped with the other separators: one pass.
  if (!raw.includes('%')) return raw.toLowerCase().replace(NOT_ALNUM, '');
  let name = raw.replace(/\+/g, ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // Kept as sent: a name that does not decode is still compared.
  }
  return name.toLowerCase().replace(NOT_ALNUM, '');
}

/**
 * True when a query parameter of this name can hold a secret: `t` (email links, one-time downloads) or any name
 * holding `key`, `token`, `secret` or `password` (`api_key`, `apiKey`, `X-API-Key`, `token`, `_token`, …).
 */
export function isSecretParam(raw: string): boolean {
  const name = normalizedParamName(raw);
  return name === 't' || /key|token|secret|password/.test(name);
}

/**
 * True when a query parameter can hold a person's data (docs/data-rights.md, "Logs"): its name holds `email` or
 * `recipient` (`email`, `respondent_email`, `respondent_email_in`, `recipient`, …), or its value holds an `@`, raw or
 * percent-encoded (an address inside a `filter` expression, an answer filter or a search). The request log redacts
 * such values like secrets.
 */
export function isPersonalParam(rawName: string, rawValue: string): boolean {
  if (rawValue.includes('@') || /%40/i.test(rawValue)) return true;
  const name = normalizedParamName(rawName);
  return name.includes('email') || name.includes('recipient');
}

/**
 * True when a query parameter of this name is an API key (`api_key`, `apiKey`, `x-api-key`, `X-API-Key`,
 * `apikey`, any case or separator): such a request is refused (docs/api-rules.md, "Keys and access").
 */
export function isApiKeyParam(raw: string): boolean {
  const name = normalizedParamName(raw);
  return name === 'apikey' || name === 'xapikey';
}
