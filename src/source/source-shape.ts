import { kindOf } from '../core/compose/compose-request.js';
import { type Diagnostic, error } from '../core/text/diagnostics.js';

/**
 * The BAD_REQUEST error of a pack source given by a caller without types (plain
 * JavaScript, parsed JSON): the source must be an object whose `kind` is one of `kinds`,
 * with that kind's fields of the right type, and the options an object. Undefined when
 * they have the right shape.
 */
export function sourceShapeProblem(
  source: unknown,
  options: unknown,
  kinds: readonly string[],
): Diagnostic | undefined {
  if (options !== undefined && (!isObject(options) || Array.isArray(options)))
    return error('BAD_REQUEST', `the open options are ${kindOf(options)}, not an object`);
  if (!isObject(source) || Array.isArray(source))
    return error(
      'BAD_REQUEST',
      `the pack source is ${kindOf(source)}, not an object such as { kind: 'dir', dir }`,
    );
  const { kind } = source;
  if (typeof kind !== 'string' || !kinds.includes(kind))
    return error(
      'BAD_REQUEST',
      `the pack source kind ${typeof kind === 'string' ? JSON.stringify(kind) : `is ${kindOf(kind)}`} is none of: ${kinds.join(', ')}`,
    );
  for (const [field, required] of FIELDS[kind] ?? []) {
    const value = source[field];
    if ((value !== undefined || required) && typeof value !== 'string')
      return error('BAD_REQUEST', `the ${kind} source's ${field} is ${kindOf(value)}, not a string`);
  }
  if (kind === 'files') return filesProblem(source.files);
  return undefined;
}

/** The BAD_REQUEST error of `loadPack(dir)` given no folder path. */
export function folderProblem(dir: unknown): Diagnostic | undefined {
  return typeof dir === 'string'
    ? undefined
    : error('BAD_REQUEST', `the pack folder is ${kindOf(dir)}, not a path (a string)`);
}

// --- internal ---

/** Each kind's string fields: name, and whether it must be given. */
const FIELDS: Readonly<Record<string, ReadonlyArray<readonly [string, boolean]>>> = {
  dir: [['dir', true]],
  bundle: [['file', true]],
  git: [
    ['dir', true],
    ['rev', true],
    ['root', false],
  ],
  files: [['root', false]],
};

function filesProblem(files: unknown): Diagnostic | undefined {
  if (!(files instanceof Map))
    return error(
      'BAD_REQUEST',
      `the files source's files is ${kindOf(files)}, not a Map of path to text or bytes`,
    );
  for (const [path, content] of files) {
    if (typeof path !== 'string')
      return error('BAD_REQUEST', `the files source holds a path that is ${kindOf(path)}, not a string`);
    if (typeof content !== 'string' && !(content instanceof Uint8Array))
      return error(
        'BAD_REQUEST',
        `the files source's ${JSON.stringify(path)} is ${kindOf(content)}, not text or bytes (a Uint8Array)`,
      );
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
