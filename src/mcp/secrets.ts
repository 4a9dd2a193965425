/**
 * No secret in a tool result (docs/agents.md, "Safety rules"). The operations whose purpose is a secret are no tools
 * (`x-mcp: false` in openapi/: creating an API key, rotating a webhook secret); what is left answers a secret in one
 * place, the `secret` of a created webhook endpoint. As a second wall, every tool result passes redactSecrets, which
 * masks any member named `secret` and any text that looks like an API key secret (`fa_…`) or a webhook signing secret
 * (`whsec_…`), wherever it sits.
 */
import { API_KEY_PREFIX } from '../core/api-keys/secrets';

/** What a masked secret reads as. */
export const REDACTED = '[redacted: never shown to an agent; see docs/agents.md]';

const SECRET_TEXT = new RegExp(`(?:${API_KEY_PREFIX}[A-Za-z0-9_-]{20,}|whsec_[A-Za-z0-9+/=_-]{8,})`, 'g');

/** `value` (a parsed JSON answer) with every secret masked; the input is not changed. */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(SECRET_TEXT, REDACTED);
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = /secret/i.test(k) && typeof v === 'string' ? REDACTED : redactSecrets(v);
  return out;
}
