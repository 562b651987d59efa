import type { OpenAPIHono, RouteConfig, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ErrorSchema } from '../schemas/common.js';
import type { Answer } from '../service/answer.js';
import type { AppEnv } from '../service/context.js';
import { errorAnswer } from '../service/errors.js';
import { type DirectHandler, type RouteQuery, RouteTable } from '../service/route-table.js';

/** A route handler that answers a plain Response (bodies are often pre-serialised). */
export type PlainHandler = (c: Context<AppEnv>) => Response | Promise<Response>;

/**
 * Declares a route in the app's routing table ({@link routeTable}) and registers it on the
 * app: documented, validated, its handler answering a plain Response. Every route needs
 * an `operationId`; one without `security` is documented as public. A `direct` handler
 * lets the node server answer the route's requests without the app when it can (it must
 * answer exactly what `handler` would).
 */
export function addRoute(
  app: OpenAPIHono<AppEnv>,
  config: RouteConfig & { operationId: string },
  handler: PlainHandler,
  direct?: DirectHandler,
): void {
  routeTable(app).add(config.method, config.path, config.operationId, direct, declaredQuery(config));
  // Any route answers 403 to a Host (or an unsafe method's Origin) the service does not
  // accept; any API route 400 to a query parameter it does not declare.
  const refusals = config.path.startsWith('/api/') ? errors(400, 403) : errors(403);
  const responses = { ...refusals, ...config.responses };
  app.openapi({ security: [], ...config, responses }, handler as never);
}

/** The routing table of an app: every route declared with {@link addRoute}, in order. */
export function routeTable(app: OpenAPIHono<AppEnv>): RouteTable {
  let table = tables.get(app);
  if (!table) {
    table = new RouteTable();
    tables.set(app, table);
  }
  return table;
}

/** Response headers of the prompt answers, for the document. */
export const PROMPT_HEADERS = {
  ETag: {
    description:
      "This representation's strong validator: the text's sha256 for text/plain, the body's sha256 for JSON and provider formats",
    required: true,
    schema: { type: 'string' as const },
  },
  'X-Strata-Version': {
    description: 'The pack version the answer was composed from',
    required: true,
    schema: { type: 'string' as const },
  },
  'Cache-Control': {
    description: '`no-cache`: revalidate with If-None-Match',
    required: true,
    schema: { type: 'string' as const },
  },
};

/** The `If-None-Match` request header, for the document. */
export const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header' as const,
  required: false,
  description: 'ETags held; the answer is 304 when one is the ETag of the representation asked for',
  schema: { type: 'string' as const },
};

/** The `If-Match` request header, for the document. */
export const IF_MATCH = {
  name: 'If-Match',
  in: 'header' as const,
  required: false,
  description:
    'ETags (compared strongly) or `*`; the answer is 412 PRECONDITION_FAILED when none is the ETag of the representation asked for',
  schema: { type: 'string' as const },
};

/** The `var.KEY=VALUE` query parameters, for the document. */
export const VAR_PARAMS = {
  name: 'var',
  in: 'query' as const,
  required: false,
  style: 'form' as const,
  explode: true,
  description:
    'Request inputs the pack declares, as `var.KEY=VALUE` query parameters (e.g. `var.task=review`); each key once; values are parsed by the input type',
  schema: { type: 'object' as const, additionalProperties: { type: 'string' as const } },
};

/** The `set.KEY=VALUE` query parameters, for the document. */
export const SET_PARAMS = {
  name: 'set',
  in: 'query' as const,
  required: false,
  style: 'form' as const,
  explode: true,
  description:
    'Setting overrides as `set.KEY=VALUE` query parameters (e.g. `set.fable_mode_enabled=on`); each key once; values are parsed by the setting type',
  schema: { type: 'object' as const, additionalProperties: { type: 'string' as const } },
};

/** The validated input of a route (the schema already checked it). */
export function valid<S extends z.ZodType>(
  c: Context<AppEnv>,
  target: 'json' | 'query' | 'param',
  _schema: S,
): z.infer<S> {
  return (c.req.valid as (t: string) => unknown)(target) as z.infer<S>;
}

/**
 * The 400 answer to input a route's schema refuses: `TARGET PATH: message` of the first
 * issue (`query team: Too small: …`). The app's validators answer it (its `defaultHook`),
 * and so do the direct handlers, which validate with the same schemas ({@link validate}).
 */
export function validationAnswer(target: string, error: z.ZodError): Answer {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${target} ${issue.path.join('.')}` : target;
  return errorAnswer(400, 'BAD_REQUEST', `${where}: ${issue?.message ?? 'invalid'}`);
}

/** A value checked by a route's schema, as its validator checks it: the data, or the 400 answer. */
export function validate<S extends z.ZodType>(
  schema: S,
  target: 'json' | 'query',
  value: unknown,
): { data: z.infer<S> } | Answer {
  const result = schema.safeParse(value);
  return result.success ? { data: result.data } : validationAnswer(target, result.error);
}

/** Drops keys whose value is undefined (requests compare by their keys). */
export function defined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const key in o) if (o[key] !== undefined) out[key] = o[key];
  return out as never;
}

/** An OpenAPI response entry for a JSON body. */
export function json(schema: z.ZodType, description: string) {
  return { content: { 'application/json': { schema } }, description };
}

/** The error responses a route may give, for the document. */
export function errors(...statuses: number[]): Record<number, ReturnType<typeof json>> {
  const out: Record<number, ReturnType<typeof json>> = {};
  for (const s of statuses) out[s] = json(ErrorSchema, ERROR_TEXT[s] ?? 'Error');
  return out;
}

// --- internal ---

/**
 * The query parameters a route declares: the keys of its query schema, and for each
 * exploded object parameter (`set`, `var`), its name as a `name.` prefix.
 */
function declaredQuery(config: RouteConfig): RouteQuery {
  const shape = (config.request?.query as { shape?: Record<string, unknown> } | undefined)?.shape;
  const names = shape ? Object.keys(shape) : [];
  const prefixes: string[] = [];
  for (const p of (config.parameters ?? []) as Array<{
    in?: string;
    name?: string;
    schema?: { type?: string };
  }>) {
    if (p.in !== 'query' || p.name === undefined) continue;
    if (p.schema?.type === 'object') prefixes.push(`${p.name}.`);
    else if (!names.includes(p.name)) names.push(p.name);
  }
  return { names, prefixes };
}

const tables = new WeakMap<OpenAPIHono<AppEnv>, RouteTable>();

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad request: bad name, bad or unknown setting or input, a missing input, invalid body or query',
  401: 'Missing or wrong admin token',
  403: 'HOST_NOT_ALLOWED or ORIGIN_NOT_ALLOWED: a Host, or an unsafe request’s Origin, the service does not accept (the reload endpoint also: FORBIDDEN, no STRATA_ADMIN_TOKEN)',
  404: 'Unknown role, agent or version',
  406: 'NOT_ACCEPTABLE: the Accept header accepts neither application/json nor text/plain',
  412: 'PRECONDITION_FAILED: an If-Match naming neither * nor the ETag of the answer; on a POST, an If-None-Match naming it (RFC 9110 §13.1.2: a 304 answers only GET and HEAD)',
  413: 'Body over the size limit',
  409: 'The new version would degrade members and is held; the previous version is still served',
  415: 'Body is not JSON, is in a charset strata cannot read, or is compressed (a Content-Encoding other than identity, a Transfer-Encoding other than chunked)',
  422: 'Unprocessable: a reload that failed validation (the previous version is still served), a prompt refused in strict mode, or a prompt over the byte limit (PROMPT_TOO_LARGE, --max-prompt-bytes)',
  500: 'The pack cannot satisfy the request',
  503: 'No pack version is loaded yet',
};
