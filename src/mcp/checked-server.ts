import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AnyObjectSchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { invalidParams, type McpFailure } from './errors.js';

type Handler<T extends AnyObjectSchema> = Parameters<typeof Server.prototype.setRequestHandler<T>>[1];

/**
 * The SDK's `Server`, answering a request whose params do not fit its method (a `name`
 * that is not a string, `arguments` that are not strings, an unknown log level, …) with
 * -32602 `BAD_REQUEST` naming each misfit, where the SDK answers -32603 with its schema's
 * issues as JSON (-32602 for a `tools/call`). Every handler, the SDK's own (`initialize`,
 * `logging/setLevel`, `ping`) and strata's, is checked so.
 */
export class CheckedServer extends Server {
  override setRequestHandler<T extends AnyObjectSchema>(schema: T, handler: Handler<T>): void {
    // Every schema of the SDK's types is a zod 4 object. The SDK parses a request with the
    // schema it is given: given one that takes any params, the params are checked here.
    const strict = schema as unknown as RequestSchema;
    const lenient = strict.pick({ method: true }).loose() as T;
    const checkedHandler: Handler<T> = (request, extra) => {
      const checked = checkParams(strict, request);
      if ('misfit' in checked) throw checked.misfit;
      return handler(checked.data as SchemaOutput<T>, extra);
    };
    // The SDK's Server checks a tools/call before any handler (answering a misfit with its
    // schema's issues as JSON) and then its result: the call is checked here as every
    // other request, and the results are strata's own (it runs no tasks).
    if (strict.shape.method.value === 'tools/call')
      Protocol.prototype.setRequestHandler.call(this, lenient, checkedHandler as never);
    else super.setRequestHandler(lenient, checkedHandler);
  }
}

/**
 * Why a request does not fit its method's schema (-32602 `BAD_REQUEST` naming each
 * misfit, as a `CheckedServer` answers it), or undefined when it fits.
 */
export function paramsMisfit(schema: AnyObjectSchema, request: unknown): McpFailure | undefined {
  const checked = checkParams(schema as unknown as RequestSchema, request);
  return 'misfit' in checked ? checked.misfit : undefined;
}

// --- internal ---

/** What strata uses of a request schema of the SDK (a zod 4 object). */
interface RequestSchema {
  shape: { method: { value: string } };
  pick(mask: { method: true }): { loose(): unknown };
  safeParse(
    value: unknown,
  ): { success: true; data: unknown } | { success: false; error: { issues: Issue[] } };
}

interface Issue {
  path: PropertyKey[];
  message: string;
}

/** The request as its schema gives it, or the -32602 that names its misfits. */
function checkParams(schema: RequestSchema, request: unknown): { data: unknown } | { misfit: McpFailure } {
  const parsed = schema.safeParse(request);
  if (parsed.success) return { data: parsed.data };
  return { misfit: invalidParams('BAD_REQUEST', misfits(schema.shape.method.value, parsed.error.issues)) };
}

/** The first few misfits of a request's params, each at its path (`params.arguments.team: …`). */
function misfits(method: string, issues: readonly Issue[]): string {
  const shown = issues
    .slice(0, MAX_ISSUES)
    .map((i) => `${i.path.map(String).join('.') || 'the request'}: ${i.message}`);
  const more = issues.length > MAX_ISSUES ? `; … (${issues.length} in all)` : '';
  return `${method}: ${shown.join('; ')}${more}`;
}

const MAX_ISSUES = 5;
