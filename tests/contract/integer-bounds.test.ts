/**
 * Every integer a request can carry is bounded in openapi/ (docs/api-rules.md, "Limits"): a value past what
 * its database column holds (`integer` 2147483647) or past what JavaScript counts exactly (2^53 - 1) is a 400
 * from the validator, never a 500 from the database. Walks every operation's parameters and request bodies,
 * $refs resolved, and names each integer schema that lacks `minimum` or `maximum` (an `enum` bounds it too).
 */
import { loadOpenApiDocument } from '../../src/platform/openapi';

type Schema = Record<string, unknown>;
const doc = loadOpenApiDocument() as unknown as Schema & { paths: Record<string, Record<string, Schema>> };
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

/** The object a local `$ref` (`#/components/…`) points to, followed until it is not a $ref. */
function deref(node: unknown): Schema | undefined {
  let cur = node as Schema | undefined;
  while (cur && typeof cur.$ref === 'string') {
    cur = cur.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((o, k) => (o as Schema | undefined)?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as Schema | undefined;
  }
  return cur;
}

/** Every integer schema under `node`, with where it sits (`post /path body.version`). */
function integers(node: unknown, where: string, seen: ReadonlySet<string>, out: Array<{ where: string; schema: Schema }>): void {
  const ref = (node as Schema | undefined)?.$ref;
  if (typeof ref === 'string' && seen.has(ref)) return;
  const next = typeof ref === 'string' ? new Set([...seen, ref]) : seen;
  const s = deref(node);
  if (!s || typeof s !== 'object') return;
  const type = s.type;
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) out.push({ where, schema: s });
  for (const k of ['items', 'additionalProperties', 'not']) if (s[k] && typeof s[k] === 'object') integers(s[k], `${where}.${k}`, next, out);
  for (const k of ['allOf', 'anyOf', 'oneOf']) ((s[k] as unknown[] | undefined) ?? []).forEach((x, i) => integers(x, `${where}.${k}[${i}]`, next, out));
  for (const [name, p] of Object.entries((s.properties as Record<string, unknown> | undefined) ?? {})) integers(p, `${where}.${name}`, next, out);
}

function requestIntegers(): Array<{ where: string; schema: Schema }> {
  const out: Array<{ where: string; schema: Schema }> = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const shared = (item.parameters as unknown as unknown[] | undefined) ?? [];
    for (const method of METHODS.filter((m) => item[m])) {
      const op = item[method]!;
      for (const raw of [...shared, ...((op.parameters as unknown[] | undefined) ?? [])]) {
        const p = deref(raw)!;
        integers(p.schema, `${method} ${path} ${String(p.in)}:${String(p.name)}`, new Set(), out);
      }
      const body = deref(op.requestBody);
      for (const [media, content] of Object.entries((body?.content as Record<string, Schema> | undefined) ?? {})) {
        integers(content.schema, `${method} ${path} body(${media})`, new Set(), out);
      }
    }
  }
  return out;
}

describe('integer bounds in openapi/', () => {
  const found = requestIntegers();

  it('finds the integers of requests (the walk reaches parameters and bodies)', () => {
    const places = found.map((f) => f.where);
    expect(places).toEqual(
      expect.arrayContaining([
        'post /api/v1/workspaces/{workspace_id}/responses body(application/json).version',
        'get /api/v1/workspaces/{workspace_id}/responses query:page',
        'get /api/v1/workspaces/{workspace_id}/responses query:limit',
        'post /api/v1/workspaces/{workspace_id}/api-keys body(application/json).rate_limit_per_minute',
      ]),
    );
  });

  it('gives every integer of a request a minimum and a maximum a database column and JavaScript can hold', () => {
    const unbounded = found
      .filter(({ schema }) => !Array.isArray(schema.enum))
      .filter(({ schema }) => typeof schema.minimum !== 'number' || typeof schema.maximum !== 'number' || (schema.maximum as number) > Number.MAX_SAFE_INTEGER)
      .map((f) => `${f.where} (minimum ${String(f.schema.minimum)}, maximum ${String(f.schema.maximum)})`);
    expect(unbounded).toEqual([]);
  });
});
