/**
 * The part of `structured-headers` (RFC 9651 structured fields) the tests use. The package declares its types only
 * through `exports` conditions, which this repository's `moduleResolution: node` does not read; this is the shape of
 * its `cjs/index.d.cts` for `parseList`, which tests/support/headers.ts uses to read the RateLimit fields.
 */
declare module 'structured-headers' {
  /** A bare item: a number, a string, a boolean, or an object for a token, byte sequence, date or display string. */
  export type BareItem = number | string | boolean | object;
  export type Parameters = Map<string, BareItem>;
  export type Item = [BareItem, Parameters];
  export type InnerList = [Item[], Parameters];
  export type List = Array<InnerList | Item>;
  /** Parses a List field value; throws on a value that is not one. */
  export function parseList(input: string): List;
}
