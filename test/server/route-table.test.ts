import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DirectHandler, RouteTable, type TableRoute } from '../../src/server/service/route-table.js';

/** The route a request names as the table declares them: the first whose method and pattern match. */
function firstMatch(routes: readonly TableRoute[], method: string, path: string) {
  const wanted = method === 'HEAD' ? 'GET' : method;
  const route = routes.find((r) => r.method === wanted && r.re.test(path));
  const values = route?.re.exec(path)?.slice(1) ?? [];
  if (!route?.direct || values.some((v) => v.includes('%'))) return undefined;
  return { route, params: Object.fromEntries(route.names.map((name, i) => [name, values[i]!])) };
}

describe('RouteTable.direct', () => {
  const handler: DirectHandler = () => undefined;
  const route = fc.record({
    method: fc.constantFrom('GET', 'POST', 'get'),
    path: fc.constantFrom(
      '/api/compose',
      '/api/prompts/{role}',
      '/api/prompts/developer',
      '/api/{what}',
      '/api/roles',
      '/api/teams/{team}/prompts',
      '/healthz',
      '/a.b',
    ),
    direct: fc.boolean(),
  });
  const request = fc.record({
    method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT'),
    path: fc.constantFrom(
      '/api/compose',
      '/api/prompts/developer',
      '/api/prompts/dev%65loper',
      '/api/prompts/',
      '/api/roles',
      '/api/teams/platform/prompts',
      '/healthz',
      '/a.b',
      '/aXb',
      '/api/compose/',
    ),
  });

  it('finds the route the first matching declaration names (a path without parameters in one look-up)', () => {
    fc.assert(
      fc.property(
        fc.array(route, { maxLength: 10 }),
        fc.array(request, { minLength: 1, maxLength: 10 }),
        (routes, requests) => {
          const table = new RouteTable();
          for (const r of routes) table.add(r.method, r.path, `op-${r.path}`, r.direct ? handler : undefined);
          for (const { method, path } of requests) {
            const expected = firstMatch(table.routes, method, path);
            const found = table.direct(method, path);
            expect(found?.route === expected?.route, `${method} ${path}`).toBe(true);
            expect(found?.params).toEqual(expected?.params);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
