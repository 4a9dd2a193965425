import { AppError } from '../../src/core/errors';
import { workspaceIdOf } from '../../src/core/workspace-path';
import { loadOpenApiDocument } from '../../src/platform/openapi';
import { operationIndex } from '../../src/platform/operations';
import { scopeCheck } from '../../src/platform/access';
import { beforeBound, endDateBound, fromBound, parseDateValue } from '../../src/core/query/dates';
import { fieldMap, type ListField } from '../../src/core/query/fields';
import { decodeCursor, encodeCursor, keysetCondition, orderByClause } from '../../src/core/query/keyset';
import { parseSort, sortSignature } from '../../src/core/query/sort';
import { sql } from '../../src/core/query/sql';
import { selectStyle } from '../../src/platform/style';

const field = (name: string, type: ListField['type'] = 'text', nullable = false): ListField => ({ name, expr: sql('??', name), type, nullable });
const created = field('created_at', 'timestamp');
const score = field('score', 'number');
const id = field('id');
const fields = fieldMap([created, score]);
const opts = { fields, tieBreaker: id, defaultSort: [{ field: created, dir: 'desc' as const }], multi: false };

function validationField(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('validation_error');
    return (e as AppError).details?.[0]?.field;
  }
  throw new Error('expected a validation_error');
}

describe('cursor codec', () => {
  it('round-trips and checks list and sort', () => {
    const keys = parseSort(undefined, opts);
    const c = encodeCursor({ l: 'responses:ws1', s: 'created_at:desc,id:desc', k: ['2026-01-01T00:00:00.123Z', 'rsp_1'], d: 'n' });
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c, 'responses:ws1', 'created_at:desc,id:desc', keys).k).toEqual(['2026-01-01T00:00:00.123Z', 'rsp_1']);
    expect(validationField(() => decodeCursor(c, 'responses:ws2', 'created_at:desc,id:desc', keys))).toBe('cursor');
    expect(validationField(() => decodeCursor(c, 'responses:ws1', 'score:asc,id:asc', keys))).toBe('cursor');
    expect(validationField(() => decodeCursor('%%%', 'responses:ws1', 'created_at:desc,id:desc', keys))).toBe('cursor');
    expect(validationField(() => decodeCursor(Buffer.from('{"l":1}').toString('base64url'), 'x', 'y', keys))).toBe('cursor');
  });
});

describe('dates', () => {
  it('reads dates as 00:00Z and date-times with offset; rejects the rest', () => {
    expect(parseDateValue('2024-02-29', 'd')).toEqual({ kind: 'date', date: '2024-02-29' });
    expect(parseDateValue('2024-02-29T10:00:00+02:00', 'd')).toEqual({ kind: 'date-time', value: '2024-02-29T10:00:00+02:00' });
    expect(parseDateValue('2024-02-29T10:00:00.123456Z', 'd').kind).toBe('date-time');
    for (const bad of ['2024-02-30', '2023-02-29', '2024-13-01', '2024-01-01T10:00:00', '2024-01-01T25:00:00Z', 'yesterday', '2024-1-1']) {
      expect(validationField(() => parseDateValue(bad, 'created_after'))).toBe('created_after');
    }
  });

  it('applies the inclusive and exclusive rules of each parameter', () => {
    expect(fromBound('2026-01-10', 'start_date')).toEqual({ op: '>=', value: '2026-01-10T00:00:00Z' });
    expect(beforeBound('2026-01-10', 'created_before')).toEqual({ op: '<', value: '2026-01-10T00:00:00Z' });
    expect(endDateBound('2026-01-31', 'end_date')).toEqual({ op: '<', value: '2026-02-01T00:00:00Z' });
    expect(endDateBound('2026-12-31', 'end_date')).toEqual({ op: '<', value: '2027-01-01T00:00:00Z' });
    expect(endDateBound('2026-01-31T12:00:00Z', 'end_date')).toEqual({ op: '<=', value: '2026-01-31T12:00:00Z' });
  });
});

describe('sort', () => {
  it('defaults to created_at desc and always ends with the id tie-breaker in the last direction', () => {
    expect(sortSignature(parseSort(undefined, opts))).toBe('created_at:desc,id:desc');
    expect(sortSignature(parseSort('score:asc', opts))).toBe('score:asc,id:asc');
    expect(sortSignature(parseSort('createdAt:asc', opts))).toBe('created_at:asc,id:asc');
    expect(sortSignature(parseSort('score:desc,created_at:asc', { ...opts, multi: true }))).toBe('score:desc,created_at:asc,id:asc');
  });

  it('rejects unknown fields, directions and several fields in Style A', () => {
    expect(validationField(() => parseSort('colour:asc', opts))).toBe('sort');
    expect(validationField(() => parseSort('score:up', opts))).toBe('sort');
    expect(validationField(() => parseSort('score:asc,created_at:desc', opts))).toBe('sort');
  });
});

describe('keyset conditions', () => {
  it('uses one row comparison when every key has one direction and no NULLs', () => {
    const keys = parseSort(undefined, opts);
    expect(keysetCondition(keys, ['2026-01-01T00:00:00.000Z', 'rsp_1'], 'after')).toEqual({
      sql: '(??, ??) < (?, ?)',
      bindings: ['created_at', 'id', '2026-01-01T00:00:00.000Z', 'rsp_1'],
    });
    expect(keysetCondition(keys, ['2026-01-01T00:00:00.000Z', 'rsp_1'], 'before').sql).toBe('(??, ??) > (?, ?)');
    expect(orderByClause(keys).sql).toBe('?? DESC, ?? DESC');
    expect(orderByClause(keys, true).sql).toBe('?? ASC, ?? ASC');
  });

  it('expands mixed directions and nullable keys, keeping NULLs last', () => {
    const plan = field('plan', 'text', true);
    const keys = [
      { field: plan, dir: 'asc' as const },
      { field: id, dir: 'asc' as const },
    ];
    const after = keysetCondition(keys, ['pro', 'row_1'], 'after');
    expect(after.sql).toBe('((((??) > ? OR (??) IS NULL)) OR ((??) = ? AND (??) > ?))');
    const afterNull = keysetCondition(keys, [null, 'row_1'], 'after');
    expect(afterNull.sql).toBe('((false) OR ((??) IS NULL AND (??) > ?))');
    expect(orderByClause(keys).sql).toBe('?? ASC NULLS LAST, ?? ASC');
  });
});

describe('access', () => {
  it('maps paths to scopes (from openapi x-required-scope) and workspaces', () => {
    const ops = operationIndex(loadOpenApiDocument());
    const requiredScope = (method: string, path: string) => ops.find(method, path)?.scope;
    expect(requiredScope('GET', '/api/v1/workspaces')).toBe('workspaces:read');
    expect(requiredScope('GET', '/api/v1/workspaces/')).toBe('workspaces:read');
    expect(requiredScope('GET', '/api/v1/workspaces/ws_1')).toBe('workspaces:read');
    expect(requiredScope('HEAD', '/api/v1/workspaces/ws_1')).toBe('workspaces:read');
    expect(requiredScope('GET', '/api/v1/workspaces/ws_1/forms/f/schema')).toBe('forms:read');
    expect(requiredScope('GET', '/api/v1/workspaces/ws_1/forms/f/responses')).toBe('responses:read');
    expect(requiredScope('POST', '/api/v1/workspaces/ws_1/tables/t/entries')).toBe('datatables:write');
    expect(requiredScope('GET', '/api/v1/workspaces/ws_1/emails/events')).toBe('email_events:read');
    expect(requiredScope('GET', '/api/v1/workspaces/ws_1/emails/em_1/events')).toBe('email_events:read');
    expect(requiredScope('DELETE', '/api/v1/workspaces/ws_1/api-keys/k')).toBe('api_keys:write');
    expect(requiredScope('GET', '/api/v2/workspaces/ws_1/responses')).toBe('responses:read');
    expect(requiredScope('GET', '/api/v1/openapi')).toBe('key');
    expect(requiredScope('GET', '/openapi.json')).toBe('none');
    expect(ops.find('PUT', '/api/v1/workspaces/ws_1/forms')).toBeUndefined();
    expect(ops.match('/api/v1/workspaces/ws_1/forms')?.methods).toEqual(['GET', 'HEAD']);
    expect(ops.match('/api/v1/workspaces/ws_1/nothing')).toBeUndefined();
    expect(workspaceIdOf('/api/v1/workspaces/ws%201/forms')).toBe('ws 1');
  });

  it('every operation of openapi/ declares a valid x-required-scope (docs/writes-keys-limits.md, "API keys and scopes")', () => {
    const doc = loadOpenApiDocument();
    const ops = operationIndex(doc).operations;
    expect(ops.length).toBeGreaterThan(30);
    const missing = ops.filter((o) => o.scope === undefined).map((o) => `${o.method} ${o.template}: ${JSON.stringify(o.declared)}`);
    expect(missing).toEqual([]);
    for (const op of ops) {
      const raw = doc.paths[op.template]![op.method.toLowerCase()] as { security?: unknown[] };
      const keyless = Array.isArray(raw.security) && raw.security.length === 0;
      // `none` exactly for the operations that need no key (security: []).
      expect(`${op.method} ${op.template} ${op.scope === 'none'}`).toBe(`${op.method} ${op.template} ${keyless}`);
      // A scope is that of the last collection in the path (docs/writes-keys-limits.md, "API keys and scopes"); minting a
      // dashboard link needs `responses:read` too (the same section: its page and downloads show the responses).
      if (op.scope !== 'none' && op.scope !== 'key') {
        const resource = lastCollectionResource(op.template);
        // A bulk delete's progress belongs to the delete: `responses:write` for its GET too (the same section).
        const access = op.method === 'GET' && !op.template.includes('/response-deletions') ? 'read' : 'write';
        const mint = op.method === 'POST' && op.template.endsWith('/dashboard-links');
        const expected = mint ? `${resource}:${access},responses:read` : `${resource}:${access}`;
        expect(`${op.method} ${op.template} ${String(op.scope)}`).toBe(`${op.method} ${op.template} ${expected}`);
      }
    }
  });
});

describe('scope check fails closed', () => {
  const doc = {
    paths: {
      '/api/v1/workspaces/{workspace_id}/things': { get: { 'x-required-scope': 'forms:read' }, post: {} },
      '/api/v1/workspaces/{workspace_id}/odd': { get: { 'x-required-scope': 'forms:admin' } },
      '/api/v1/workspaces/{workspace_id}/both': { post: { 'x-required-scope': ['forms:write', 'responses:read'] } },
      '/api/v1/workspaces/{workspace_id}/empty': { post: { 'x-required-scope': [] } },
    },
  };
  const ops = operationIndex(doc as never);
  const check = scopeCheck();
  // The request context as the first step makes it: the path matched once, the key known.
  const req = (method: string, path: string, scopes: string[]) => ({ method, path, context: { match: ops.match(path), auth: { scopes } } }) as never;
  const run = (method: string, path: string, scopes: string[]) => {
    try {
      check(req(method, path, scopes), {} as never, () => undefined);
      return 'next';
    } catch (e) {
      return `${(e as AppError).status} ${(e as AppError).code}`;
    }
  };
  it('refuses an operation without a valid x-required-scope, even for a key with every scope', () => {
    expect(run('GET', '/api/v1/workspaces/w/things', ['forms:read'])).toBe('next');
    expect(run('GET', '/api/v1/workspaces/w/things', [])).toBe('403 insufficient_scope');
    expect(run('POST', '/api/v1/workspaces/w/things', ['forms:read', 'forms:write'])).toBe('403 insufficient_scope');
    expect(run('GET', '/api/v1/workspaces/w/odd', ['forms:read', 'forms:write'])).toBe('403 insufficient_scope');
    expect(run('DELETE', '/api/v1/workspaces/w/things', ['forms:write'])).toBe('405 method_not_allowed');
    expect(run('GET', '/api/v1/workspaces/w/unknown', ['forms:read'])).toBe('404 resource_not_found');
    expect(run('POST', '/api/v1/workspaces/w/empty', ['forms:read', 'forms:write'])).toBe('403 insufficient_scope');
  });
  it('needs every scope of a list, and names the first one the key lacks', () => {
    const message = (scopes: string[]) => {
      try {
        check(req('POST', '/api/v1/workspaces/w/both', scopes), {} as never, () => undefined);
        return 'next';
      } catch (e) {
        return `${(e as AppError).code}: ${(e as AppError).message}`;
      }
    };
    expect(message(['forms:write', 'responses:read'])).toBe('next');
    expect(message(['forms:read', 'responses:read'])).toMatch(/^insufficient_scope: .*forms:write/);
    expect(message(['forms:write'])).toMatch(/^insufficient_scope: .*responses:read/);
  });
});

/** docs/writes-keys-limits.md, "API keys and scopes": the resource of the last collection in a path template (a deliberately separate reading). */
function lastCollectionResource(template: string): string {
  // The event log (docs/live.md, "Event log") and its stream have a scope of their own; `/emails/{id}/events` are email events.
  if (template === '/api/v1/workspaces/{workspace_id}/events' || template === '/api/v1/workspaces/{workspace_id}/events/stream') return 'events';
  const bySegment: Record<string, string> = {
    workspaces: 'workspaces',
    forms: 'forms',
    analytics: 'forms',
    links: 'forms',
    questions: 'forms',
    schema: 'forms',
    responses: 'responses',
    // A person's data (docs/data-rights.md): their responses, and with other scopes their events and rows.
    respondents: 'responses',
    'response-deletions': 'responses',
    'erasure-requests': 'responses',
    datatables: 'datatables',
    tables: 'datatables',
    emails: 'email_events',
    'email-events': 'email_events',
    'webhook-endpoints': 'webhooks',
    deliveries: 'webhooks',
    'api-keys': 'api_keys',
    'audit-events': 'audit',
    // Topics are saved searches of the workspace's analytics: the `forms` scopes (docs/writes-keys-limits.md).
    topics: 'forms',
  };
  const segs = template.split('/').filter((s) => s && !s.startsWith('{'));
  for (let i = segs.length - 1; i >= 0; i--) {
    const r = bySegment[segs[i]!];
    if (r) return r;
  }
  return '?';
}

describe('style selection', () => {
  // A path's style is its `x-style` in openapi/.
  const pathStyle = (path: string) => operationIndex(loadOpenApiDocument()).match(path)?.style;
  const responses = pathStyle('/api/v1/workspaces/ws_1/responses');
  it('follows header, then style-only parameters, then the key default', () => {
    expect(selectStyle(responses, 'b', {}, 'A')).toBe('B');
    expect(selectStyle(responses, undefined, { page: '2' }, 'A')).toBe('B');
    expect(selectStyle(responses, undefined, { cursor: 'x' }, 'B')).toBe('A');
    expect(selectStyle(responses, undefined, { limit: '5' }, 'B')).toBe('B');
    expect(selectStyle(pathStyle('/api/v1/workspaces/ws_1/tables'), 'A', {}, 'A')).toBe('B');
    expect(selectStyle(pathStyle('/api/v1/workspaces/ws_1/emails/events'), undefined, {}, 'A')).toBe('B');
    expect(selectStyle(pathStyle('/api/v1/workspaces/ws_1/emails/em_1/events'), undefined, {}, 'B')).toBe('A');
  });

  it('rejects a bad header and parameters of both styles', () => {
    expect(validationField(() => selectStyle(responses, 'C', {}, 'A'))).toBe('X-API-Style');
    expect(validationField(() => selectStyle(responses, undefined, { page: '1', cursor: 'x' }, 'A'))).toBe('cursor');
  });
});
