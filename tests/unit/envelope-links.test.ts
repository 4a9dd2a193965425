/**
 * The links of a list page (src/adapters/envelope.ts, urlWith): written without URL objects when the request is plain,
 * they must be the very text WHATWG URL writes (`new URL(originalUrl, protocol://host)` and `searchParams.set` /
 * `delete`), for plain requests and for every other one alike (issue 28).
 */
import type { Request } from 'express';
import fc from 'fast-check';
import { urlWith } from '../../src/adapters/envelope';

/** urlWith as it was written before the plain-request path: the reference. */
function viaUrl(protocol: string, host: string | undefined, originalUrl: string, changes: Record<string, string | number | null>): string {
  const url = new URL(originalUrl, `${protocol}://${host ?? 'localhost'}`);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) url.searchParams.delete(name);
    else url.searchParams.set(name, String(value));
  }
  return url.toString();
}

const requestOf = (protocol: string, host: string | undefined, originalUrl: string) =>
  ({ protocol, originalUrl, get: (name: string) => (name.toLowerCase() === 'host' ? host : undefined) }) as unknown as Request;

/** Either URL's answer or its error, to compare both ways of writing a link. */
function outcome(f: () => string): string {
  try {
    return f();
  } catch (e) {
    return `throws ${(e as Error).name}`;
  }
}

function expectSame(protocol: string, host: string | undefined, originalUrl: string, changes: Record<string, string | number | null>): void {
  expect(outcome(() => urlWith(requestOf(protocol, host, originalUrl), changes))).toBe(outcome(() => viaUrl(protocol, host, originalUrl, changes)));
}

const CHANGES: Array<Record<string, string | number | null>> = [
  {},
  { cursor: 'eyJsIjoicnNwIn0' },
  { page: 3 },
  { cursor: null },
  { cursor: 'a b' },
  { '': 'x' },
  { cursor: 'x', page: null },
];

describe('urlWith (list page links)', () => {
  it.each([
    '/api/v1/workspaces/ws_1/responses?form_id=frm_1&score_gte=9&limit=20',
    '/api/v1/workspaces/ws_1/responses',
    '/api/v1/workspaces/ws_1/responses/',
    '/api/v1/workspaces/ws_1/responses?cursor=abc&limit=20&cursor=def',
    '/api/v1/workspaces/ws_1/responses?limit=',
    '/api/v1/workspaces/ws_1/responses?limit',
    '/api/v1/workspaces/ws_1/responses?',
    '/api/v1/workspaces/ws_1/responses?a=1&&b=2',
    '/api/v1/workspaces/ws_1/responses?filter=score in [7,8]&page=2',
    '/api/v1/workspaces/ws_1/responses?filter=score%20in%20%5B7%5D',
    '/api/v1/workspaces/ws_1/responses?q=a+b',
    '/api/v1/./workspaces/../ws',
    '/api/v1/w%73/x',
    '//evil.example/x?a=1',
    '/a\\b',
    '/',
    '/ünï/x?y=ü',
  ])('writes %s as URL does, with each change', (originalUrl) => {
    for (const changes of CHANGES) {
      for (const host of ['127.0.0.1:3000', 'api.example.com', 'API.Example.com:443', 'h:80', 'h:0080', 'u:p@h', 'h:99999', 'h/x', undefined]) {
        for (const protocol of ['http', 'https']) expectSame(protocol, host, originalUrl, changes);
      }
    }
  });

  it('agrees with URL on generated paths, queries, hosts and changes', () => {
    const char = fc.constantFrom(...'abcXYZ019_-.~%+ =&?/#[],:;@!$*\'"<>\\ü'.split(''));
    const text = fc.array(char, { maxLength: 12 }).map((cs) => cs.join(''));
    const plain = fc.stringMatching(/^[A-Za-z0-9_.-]{0,6}$/);
    const path = fc.array(fc.oneof(plain, text), { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`);
    const query = fc.option(fc.array(fc.tuple(fc.oneof(plain, text), fc.oneof(plain, text)), { maxLength: 4 }), { nil: undefined });
    const host = fc.constantFrom('127.0.0.1:3000', 'localhost', 'Api.Example.com', 'h:80', 'h:443', 'x.y.z:8080', 'u@h', undefined);
    const change = fc.dictionary(fc.oneof(plain, text), fc.oneof(plain, text, fc.integer(), fc.constant(null)), { maxKeys: 2 });
    fc.assert(
      fc.property(fc.constantFrom('http', 'https'), host, path, query, change, (protocol, h, p, q, changes) => {
        const originalUrl = q === undefined ? p : `${p}?${q.map(([n, v]) => `${n}=${v}`).join('&')}`;
        expectSame(protocol, h, originalUrl, changes);
      }),
      { numRuns: 3000 },
    );
  });
});
