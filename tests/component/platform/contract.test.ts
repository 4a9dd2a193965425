/**
 * Contract between the app and openapi/: every route the app serves is described there, and every
 * operation described there is served. Routes are read from Express's router tree.
 */
import { loadOpenApiDocument } from '../../../src/platform/openapi';
import { useTestApp } from '../../support/app';

const t = useTestApp();

interface Layer {
  rawPath?: string | RegExp;
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `{method} {path}` of every route, with Express params rewritten to OpenAPI templates. */
function served(stack: Layer[], prefix = ''): Set<string> {
  const out = new Set<string>();
  for (const layer of stack) {
    if (layer.route) {
      const path = (prefix + (layer.route.path === '/' && prefix ? '' : layer.route.path)).replace(/:(\w+)/g, '{$1}');
      for (const method of Object.keys(layer.route.methods)) if (method !== '_all') out.add(`${method.toUpperCase()} ${path}`);
    } else if (layer.handle?.stack && typeof layer.rawPath === 'string') {
      for (const r of served(layer.handle.stack, prefix + (layer.rawPath === '/' ? '' : layer.rawPath))) out.add(r);
    }
  }
  return out;
}

function described(): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(loadOpenApiDocument().paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) if (item[method]) out.add(`${method.toUpperCase()} ${path}`);
  }
  return out;
}

describe('routes and openapi/', () => {
  it('serves every operation of the document', () => {
    const routes = served((t.app as unknown as { router: { stack: Layer[] } }).router.stack);
    const missing = [...described()].filter((op) => !routes.has(op));
    expect(missing).toEqual([]);
  });

  it('describes every route the app serves', () => {
    const routes = served((t.app as unknown as { router: { stack: Layer[] } }).router.stack);
    const doc = described();
    const undocumented = [...routes].filter((op) => !doc.has(op) && !op.startsWith('GET /docs'));
    expect(undocumented).toEqual([]);
  });
});
