// Routes guarded by requireScope(scope): the check moves to onRequest, so that authentication
// (401), scope (403) and rate limit (429) come before the body is parsed or validated; the
// scope is documented in the OpenAPI (`security: [{bearerAuth: [scope]}]` — OpenAPI 3.1
// §4.8.30 allows role names for non-OAuth schemes — and `x-required-scope`); and the route is
// listed for the table-driven tests.
import type { FastifyInstance, RouteOptions } from 'fastify';

export interface ScopedRoute {
  method: string;
  url: string;
  scope: string;
}

type Hook = ((...args: unknown[]) => unknown) & { requiredScope?: string };

export function scopeDocumentation(app: FastifyInstance): ScopedRoute[] {
  const routes: ScopedRoute[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const pre = ([route.preHandler].flat().filter(Boolean) as Hook[]);
    const guard = pre.find((h) => typeof h.requiredScope === 'string');
    if (!guard) return;
    const scope = guard.requiredScope as string;
    const rest = pre.filter((h) => h !== guard);
    route.preHandler = (rest.length ? rest : undefined) as RouteOptions['preHandler'];
    route.onRequest = [guard, ...([route.onRequest].flat().filter(Boolean) as Hook[])] as RouteOptions['onRequest'];
    route.schema = { ...route.schema, security: [{ bearerAuth: [scope] }], 'x-required-scope': scope } as RouteOptions['schema'];
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: route.url, scope });
    }
  });
  return routes;
}
