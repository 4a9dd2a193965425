import { STYLE_B_OPERATIONS, mappingFor } from '../../src/core/migration/operation-map';
import { documentOperations } from '../support/openapi-ops';
import { loadOpenApiDocument } from '../../src/platform/openapi';
import { operationIndex } from '../../src/platform/operations';

const doc = loadOpenApiDocument();
const operations = operationIndex(doc).operations;
const shared = new Set(
  documentOperations()
    .filter((op) => op.shared)
    .map((op) => `${op.method} ${op.template}`),
);
/** Style-only B paths: docs/migrating-between-styles.md, "How the style is chosen". */
const styleBOnly = (template: string) => /\/workspaces\/\{workspace_id\}\/(tables(\/|$)|emails\/events$)/.test(template);
const styleB = operations.filter((op) => shared.has(`${op.method} ${op.template}`) || styleBOnly(op.template));
const styleA = operations.filter((op) => !styleBOnly(op.template));

describe('the Style B operation map (src/core/migration/operation-map.ts)', () => {
  it('has one entry per Style B operation of openapi/, with its method and path', () => {
    expect(styleB.length).toBeGreaterThan(10);
    for (const op of styleB) {
      const entry = mappingFor(op.operationId ?? '');
      expect({ op: op.operationId, method: entry?.method, path: entry?.path }).toEqual({
        op: op.operationId,
        method: op.method,
        path: op.template,
      });
    }
    expect(STYLE_B_OPERATIONS.map((m) => m.operation).sort()).toEqual(styleB.map((op) => op.operationId).sort());
  });

  it('names a real Style A operation, method and path for every equivalent', () => {
    for (const m of STYLE_B_OPERATIONS) {
      const a = styleA.find((op) => op.operationId === m.equivalent.operation);
      expect({ b: m.operation, method: a?.method, path: a?.template }).toEqual({
        b: m.operation,
        method: m.equivalent.method,
        path: m.equivalent.path,
      });
      expect(m.equivalent.params.every((p) => p.b !== '' && p.how !== '')).toBe(true);
    }
  });
});
