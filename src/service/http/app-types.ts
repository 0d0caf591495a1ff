// The fastify instance type routes are written against: TypeBox schemas type the handlers.
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
// Brings @fastify/swagger's schema fields (tags, summary, …) and app.swagger() into the types.
import type {} from '@fastify/swagger';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** A group of routes: `(app, deps) => Promise<void>`, called once while the app is built. */
export type RoutePlugin<D> = (app: App, deps: D) => Promise<void>;
