/**
 * The path → style map is the `x-style` of each path in openapi/ (docs/migrating-between-styles.md, "How the style is
 * chosen"); nothing else in the code keeps one. These tests hold it to the routers: every path has an `x-style`, every
 * route of an API router lies on a path whose `x-style` is the router's style, and every path no API router serves
 * (the document, pages, probes, public submissions) is `none`. A route added without `x-style`, or with the wrong
 * one, fails here.
 */
import type { Router } from 'express';
import { apiRouterTable } from '../../src/app';
import type { CoreDeps } from '../../src/adapters/deps';
import { loadOpenApiDocument } from '../../src/platform/openapi';
import { operationIndex, type PathStyle } from '../../src/platform/operations';

interface Layer {
  route?: { path: string | string[] };
  handle?: { stack?: Layer[] };
}

/** The route paths of a router (Express 5 keeps them on its route layers); a nested router's mount path is not kept. */
function routePaths(router: Router): string[] {
  const paths: string[] = [];
  for (const layer of (router as unknown as { stack: Layer[] }).stack) {
    if (layer.route) paths.push(...[layer.route.path].flat());
    else if (layer.handle?.stack) throw new Error('a nested router: this test cannot read its mount path; mount it in app.ts instead');
  }
  return paths;
}

/** A request path for a route (`/:workspace_id/forms` under `/api/v1/workspaces` → `/api/v1/workspaces/p/forms`). */
const samplePath = (mount: string, route: string) => `${mount}${route}`.replace(/:[A-Za-z_]+/g, 'p').replace(/(.)\/$/, '$1');

describe('x-style in openapi/', () => {
  const doc = loadOpenApiDocument();
  const ops = operationIndex(doc);
  const table = apiRouterTable({} as CoreDeps, 'http://localhost');

  it('is set on every path, to A, B, shared or none', () => {
    const missing = Object.entries(doc.paths)
      .filter(([, item]) => !['A', 'B', 'shared', 'none'].includes(item['x-style'] as string))
      .map(([template]) => template);
    expect(missing).toEqual([]);
  });

  it('is the style of the router that serves the path', () => {
    const wrong: string[] = [];
    let routes = 0;
    for (const { mount, style, router } of table) {
      for (const route of routePaths(router)) {
        routes += 1;
        const match = ops.match(samplePath(mount, route));
        if (match?.style !== style) wrong.push(`${mount}${route}: router ${style}, x-style ${match ? String(match.style) : '(no such path)'}`);
      }
    }
    expect(routes).toBeGreaterThan(40);
    expect(wrong).toEqual([]);
  });

  it('is none on every path no API router serves', () => {
    const served = new Set<string>();
    for (const { mount, router } of table) {
      for (const route of routePaths(router)) {
        const template = ops.match(samplePath(mount, route))?.template;
        if (template) served.add(template);
      }
    }
    const styled = Object.keys(doc.paths)
      .filter((template) => !served.has(template))
      .map((template) => `${template} ${String(doc.paths[template]!['x-style'])}`)
      .filter((line) => !line.endsWith(' none'));
    expect(styled).toEqual([]);
  });

  it('names only the four values the style selection knows', () => {
    const values = new Set(Object.values(doc.paths).map((item) => item['x-style']));
    expect([...values].sort()).toEqual(['A', 'B', 'none', 'shared'] satisfies PathStyle[]);
  });
});
