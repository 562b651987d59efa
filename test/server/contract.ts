import type { OpenAPIHono } from '@hono/zod-openapi';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { createApp, type StrataApp } from '../../src/server/app.js';
import { openApiDocument } from '../../src/server/routes/openapi.js';

/**
 * Checks real answers against the service's own OpenAPI document: status, content type,
 * required headers and body (Ajv, strict mode). The API tests' requests all go through
 * {@link checked}, so every answer they receive is held to the document.
 *
 * Not operations of the document, and checked as such: the inspector's static files
 * (paths outside `/api/` that the document does not name), `OPTIONS` (204 with `Allow`),
 * a known path with a method it does not take (405, `Allow`, `Error`), an unknown `/api/`
 * path (404, `Error`).
 */

type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};
type Operation = { responses: Record<string, ResponseDoc> };
type ResponseDoc = {
  content?: Record<string, { schema: unknown }>;
  headers?: Record<string, { required?: boolean }>;
};

/** An Ajv in strict mode that knows the document's schemas (by `#/components/schemas/…`). */
export function contractAjv(doc: Doc): Ajv {
  const ajv = new Ajv({ strict: true, allErrors: true });
  const addFormats =
    (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  // OpenAPI 3.0's annotation keyword beside JSON Schema's.
  ajv.addVocabulary(['example']);
  ajv.addSchema({ $id: ROOT, definitions: withRefs(doc.components.schemas) });
  return ajv;
}

/** Compiles every schema of the document, throwing on the first that Ajv refuses. */
export function compileAll(doc: Doc): number {
  const ajv = contractAjv(doc);
  let n = 0;
  for (const name of Object.keys(doc.components.schemas)) {
    if (!ajv.getSchema(ref(name))) throw new Error(`schema ${name} does not compile`);
    n += 1;
  }
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      for (const response of Object.values(op.responses)) {
        for (const media of Object.values(response.content ?? {})) {
          ajv.compile(withRefs(media.schema) as object);
          n += 1;
        }
      }
    }
  }
  return n;
}

/** The checker of one app's answers. */
export interface Contract {
  check(method: string, url: string, res: Response): Promise<void>;
}

/** A checker for the document this app serves. */
export function contractFor(app: OpenAPIHono<never> | StrataApp['app']): Contract {
  const doc = openApiDocument(app as StrataApp['app']) as unknown as Doc;
  const ajv = contractAjv(doc);
  const compiled = new Map<unknown, ValidateFunction>();
  const validator = (schema: unknown) => {
    let v = compiled.get(schema);
    if (!v) {
      v = ajv.compile(withRefs(schema) as object);
      compiled.set(schema, v);
    }
    return v;
  };
  const routes = Object.keys(doc.paths).map((path) => ({
    path,
    re: new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    literal: !path.includes('{'),
  }));
  const errorSchema = { $ref: '#/components/schemas/Error' };

  const fail = (what: string, method: string, url: string, res: Response) => {
    throw new Error(`${method} ${url} → ${res.status}: ${what}`);
  };
  const checkBody = async (
    method: string,
    url: string,
    res: Response,
    content: Record<string, { schema: unknown }> | undefined,
  ) => {
    const type = res.headers.get('content-type');
    if (!content) {
      if ((await res.clone().arrayBuffer()).byteLength > 0)
        fail('a body where the document has none', method, url, res);
      return;
    }
    if (type === null) return fail('no Content-Type', method, url, res);
    const media = content[type] ?? content[type.split(';')[0]!.trim()] ?? undefined;
    if (!media)
      return fail(`Content-Type ${type} is not one of ${Object.keys(content).join(', ')}`, method, url, res);
    if (method === 'HEAD' || type.startsWith('text/event-stream')) return;
    const text = await res.clone().text();
    const body = type.startsWith('application/json') ? JSON.parse(text) : text;
    const validate = validator(media.schema);
    if (!validate(body)) {
      fail(`body does not match the document: ${ajv.errorsText(validate.errors)}`, method, url, res);
    }
  };

  return {
    async check(method, url, res) {
      method = method.toUpperCase();
      const path = new URL(url, 'http://strata').pathname;
      const matches = routes.filter((r) => r.re.test(path));
      if (matches.length === 0) {
        if (!path.startsWith('/api/')) return; // the inspector's files
        if (res.status !== 404) fail('an unknown path answered other than 404', method, url, res);
        return checkBody(method, url, res, { 'application/json': { schema: errorSchema } });
      }
      const item: Record<string, Operation> = {};
      for (const m of [...matches].sort((a, b) => Number(a.literal) - Number(b.literal))) {
        Object.assign(item, doc.paths[m.path]);
      }
      if (method === 'OPTIONS') {
        if (res.status !== 204 || !res.headers.get('allow'))
          fail('OPTIONS is 204 with Allow', method, url, res);
        return;
      }
      const op = item[method === 'HEAD' ? 'get' : method.toLowerCase()];
      if (!op) {
        if (res.status !== 405 || !res.headers.get('allow'))
          fail('a wrong method is 405 with Allow', method, url, res);
        return checkBody(method, url, res, { 'application/json': { schema: errorSchema } });
      }
      const documented = op.responses[String(res.status)];
      if (!documented) {
        return fail(
          `status ${res.status} is not documented (${Object.keys(op.responses).join(', ')})`,
          method,
          url,
          res,
        );
      }
      for (const [name, header] of Object.entries(documented.headers ?? {})) {
        if (header.required && !res.headers.has(name)) fail(`no ${name} header`, method, url, res);
      }
      await checkBody(method, url, res, documented.content);
    },
  };
}

/**
 * The app with its `request` (and the StrataApp's `fetch`) checking every answer against
 * the document.
 */
export function checked<T extends StrataApp>(strata: T): T {
  const contract = contractFor(strata.app);
  const app = strata.app;
  const request = async (input: string | Request | URL, init?: RequestInit) => {
    const res = await app.request(input as string, init);
    const url = input instanceof Request ? input.url : String(input);
    const method = input instanceof Request ? input.method : (init?.method ?? 'GET');
    await contract.check(method, url, res);
    return res;
  };
  const proxy = new Proxy(app, {
    get(target, key) {
      if (key === 'request') return request;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const fetch = async (req: Request) => {
    const res = await strata.fetch(req);
    await contract.check(req.method, req.url, res);
    return res;
  };
  return { ...strata, app: proxy, fetch };
}

/** `createApp` with every answer checked against the document. */
export function checkedApp(...args: Parameters<typeof createApp>): StrataApp {
  return checked(createApp(...args));
}

// --- internal ---

const ROOT = 'openapi.json';

function ref(name: string): string {
  return `${ROOT}#/definitions/${name}`;
}

/** The schema with `#/components/schemas/X` references pointed at Ajv's copy of the components. */
function withRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
        ? ref(v.slice('#/components/schemas/'.length))
        : withRefs(v),
    ]),
  );
}

/** A `fetch` for a running service whose answers are checked against its document. */
export function checkedFetch(strata: StrataApp): typeof fetch {
  const contract = contractFor(strata.app);
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const res = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const method = input instanceof Request ? input.method : (init?.method ?? 'GET');
    await contract.check(method, url, res);
    return res;
  }) as typeof fetch;
}
