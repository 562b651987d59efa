import { type Diagnostic, error, warning } from '../text/diagnostics.js';
import { closestNames, didYouMean } from '../text/suggest.js';
import { compileGlob } from './glob.js';
import type { NamedFile } from './named-files.js';
import { hiddenAllowed } from './select.js';

// The error for a file a pack's own manifest names that the pack does not hold.

/**
 * The error for an exact named file the pack does not hold (`code`: BAD_FLEET for the
 * fleet file), said where the manifest names it, with the closest of `known` (the pack's
 * paths) and, for a path through a hidden folder, that `hidden:` must name the folder.
 */
export function namedFileMissing(
  named: NamedFile,
  code: Diagnostic['code'],
  known: Iterable<string>,
  hidden: readonly string[],
): Diagnostic {
  const suggestions = closestNames(named.glob, known);
  const note = hiddenAllowed(hidden, named.glob)
    ? ''
    : ' (a folder whose name starts with "." is part of the pack only when hidden: names it)';
  return {
    ...error(
      code,
      `${named.by} names ${JSON.stringify(named.glob)}, which is not in the pack${note}${didYouMean(suggestions)}`,
      named.at,
    ),
    ...(suggestions.length > 0 ? { suggestions } : {}),
  };
}

/**
 * The warning for a key whose named globs (`registry.files`) match none of `paths` (the
 * pack's files), said where the manifest names them, with the closest of `known` to each
 * glob without a wildcard; undefined when one of them matches a file.
 */
export function namedGlobsMatchNothing(
  group: readonly NamedFile[],
  code: Diagnostic['code'],
  paths: readonly string[],
  known: readonly string[],
): Diagnostic | undefined {
  const first = group[0];
  if (!first) return undefined;
  const matchers = group.map((n) => compileGlob(n.glob));
  if (paths.some((p) => matchers.some((m) => m(p)))) return undefined;
  const literal = group.map((n) => n.glob).filter((g) => !/[*?]/.test(g));
  const suggestions = [...new Set(literal.flatMap((g) => closestNames(g, known)))].slice(0, 3);
  const globs = group.map((n) => JSON.stringify(n.glob)).join(', ');
  return {
    ...warning(
      code,
      `${first.by} names ${globs}, which match${group.length === 1 ? 'es' : ''} no file in the pack${didYouMean(suggestions)}`,
      first.at,
    ),
    ...(suggestions.length > 0 ? { suggestions } : {}),
  };
}
