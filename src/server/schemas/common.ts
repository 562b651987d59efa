import { z } from '@hono/zod-openapi';
import { DIAGNOSTIC_CODES, SEVERITIES } from '../../core/text/diagnostics.js';
import { MAX_VALUE_NESTING } from '../../layouts/crewai/python-str.js';
import { HTTP_ERROR_CODES } from '../service/errors.js';

// The pieces every API schema is made of: names, setting and input values, versions, the
// strict flag, diagnostics and the error body. The schemas validate request bodies and
// queries and generate `/openapi.json`, so the document and the validation cannot disagree.

export const Name = z
  .string()
  .min(1)
  .max(200)
  .openapi({ description: 'A role, team or agent name', example: 'developer' });
/** What a JSON number past a double's range (1e999) is told: JSON.parse reads it as Infinity. */
const NOT_FINITE = 'a number past the range of a double (such as 1e999), which JSON.parse reads as Infinity';
export const SettingValue = z.union([z.string(), z.number(), z.boolean()], {
  error: (issue) =>
    issue.input === Infinity || issue.input === -Infinity
      ? NOT_FINITE
      : 'expected a string, a number or a boolean',
});
/** Names a JSON object may hold but a plain object cannot (they would change its prototype). */
const RESERVED_KEYS = ['__proto__'];
/**
 * A JSON object of names to values, refusing the names a plain object cannot hold
 * ({@link RESERVED_KEYS}) with a 400 saying each is not `what` ("a setting name").
 */
function namedValues<T extends z.ZodType>(what: string, value: T) {
  return z.preprocess(
    (input, ctx) => {
      if (typeof input === 'object' && input !== null) {
        for (const key of RESERVED_KEYS) {
          if (Object.hasOwn(input, key))
            ctx.addIssue({
              code: 'custom',
              message: `${JSON.stringify(key)} is not ${what}`,
              input,
            });
        }
      }
      return input;
    },
    z.record(z.string(), value),
  );
}
export const Settings = namedValues('a setting name', SettingValue).openapi({
  description: 'Setting overrides: strings are parsed by the setting type',
  example: { fable_mode_enabled: 'on' },
});
/**
 * Request inputs: like settings, but a value may be any JSON value (an input written as
 * Python's `str()` does takes null, lists and mappings, as CrewAI's inputs do). Checked
 * without recursion, so a body nested thousands deep is refused, not a stack overflow;
 * past {@link MAX_VALUE_NESTING} levels the core says INVALID_INPUT.
 */
export const Vars = namedValues(
  'an input name',
  z.unknown().superRefine((value, ctx) => {
    const problem = jsonValueProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, input: value });
  }),
).openapi({
  description:
    'Request inputs: strings are parsed by the input type; an input of format python takes any JSON value',
  example: { topic: 'AI agents' },
});

/**
 * Why a value is not plain JSON (what a parsed body holds) nested at most
 * MAX_VALUE_NESTING + 1 deep; undefined when it is.
 */
function jsonValueProblem(value: unknown): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      // JSON.parse reads a number past a double's range (1e999) as Infinity.
      if (!Number.isFinite(v)) return NOT_FINITE;
      continue;
    }
    if (typeof v !== 'object' || depth > MAX_VALUE_NESTING)
      return `expected a JSON value nested at most ${MAX_VALUE_NESTING + 1} levels`;
    const children = Array.isArray(v) ? v : isPlainObject(v) ? Object.values(v) : undefined;
    if (!children) return `expected a JSON value nested at most ${MAX_VALUE_NESTING + 1} levels`;
    for (const c of children) stack.push([c, depth + 1]);
  }
  return undefined;
}

export const Version = z.string().max(64).openapi({
  description: '`current` (default), `previous` (the last good version before this one), or a version id',
});

export const Strict = z.boolean().openapi({
  description:
    'Fail when the compose has warnings (unknown role, team or agent, no role, a missing layer, the fallback): the answer is the error of the first, e.g. 404 UNKNOWN_TEAM',
});
export const StrictQuery = z.enum(['true', 'false', '1', '0']).openapi({
  description: 'As `strict` in POST /api/compose: `true` or `1` fails on warnings',
});

export const DiagnosticSchema = z
  .object({
    code: z.enum(DIAGNOSTIC_CODES),
    severity: z.enum(SEVERITIES),
    message: z.string(),
    file: z.string().optional(),
    line: z.number().int().optional(),
    col: z.number().int().optional(),
    suggestions: z
      .array(z.string())
      .optional()
      .openapi({ description: 'The closest known names, for an unknown role, team, agent or setting' }),
  })
  .openapi('Diagnostic');

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.enum([...DIAGNOSTIC_CODES, ...HTTP_ERROR_CODES]),
      message: z.string(),
      diagnostics: z.array(DiagnosticSchema).optional(),
    }),
  })
  .openapi('Error');

// --- internal ---

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
