/**
 * Style B deprecation headers (docs/analytics.md, "Deprecation headers"): with `STYLE_B_SUNSET` set, every Style B answer,
 * errors included, carries `Deprecation: @{Unix seconds}` (RFC 9745; `STYLE_B_DEPRECATED_AT`, default
 * 180 days before the sunset), `Sunset: {HTTP-date}` (RFC 8594, 00:00:00 GMT of the sunset day) and
 * `Link: <{PUBLIC_URL}/docs/migrating>; rel="deprecation"`. Style A answers carry none of them.
 * They are added when the head is written (platform/style-selection.ts, styleHeaders), from the style in the request context.
 */
import type { Response } from 'express';
import { parseDateValue } from '../core/query/dates';

export interface DeprecationHeaders {
  Deprecation: string;
  Sunset: string;
  Link: string;
}

/**
 * The three headers for the given settings, or undefined when no sunset is set.
 * @throws Error naming the setting when a date is not `YYYY-MM-DD`.
 */
export function deprecationHeaders(settings: {
  styleBSunset?: string | undefined;
  styleBDeprecatedAt?: string | undefined;
  publicUrl: string;
}): DeprecationHeaders | undefined {
  if (!settings.styleBSunset) return undefined;
  const day = (raw: string, name: string) => {
    let parsed;
    try {
      parsed = parseDateValue(raw, name);
    } catch {
      parsed = undefined;
    }
    if (parsed?.kind !== 'date') throw new Error(`${name} must be a date YYYY-MM-DD, got "${raw}"`);
    return Date.parse(`${parsed.date}T00:00:00Z`);
  };
  const sunset = day(settings.styleBSunset, 'STYLE_B_SUNSET');
  const deprecated = settings.styleBDeprecatedAt ? day(settings.styleBDeprecatedAt, 'STYLE_B_DEPRECATED_AT') : sunset - 180 * 86_400_000;
  return {
    Deprecation: `@${Math.floor(deprecated / 1000)}`,
    Sunset: new Date(sunset).toUTCString(),
    Link: `<${settings.publicUrl}/docs/migrating>; rel="deprecation"`,
  };
}

/** Adds the three headers to an answer whose head is about to be written (styleHeaders, for a Style B answer). */
export function addDeprecationHeaders(res: Response, headers: DeprecationHeaders): void {
  for (const [name, value] of Object.entries(headers) as Array<[keyof DeprecationHeaders, string]>) {
    // A Link the route set itself is kept beside ours.
    if (name === 'Link' && res.hasHeader('Link')) res.setHeader('Link', `${String(res.getHeader('Link'))}, ${value}`);
    else res.setHeader(name, value);
  }
}
