import { type Diagnostic, error } from './diagnostics.js';
import type { NamedFile } from './named-files.js';
import { hiddenAllowed } from './select.js';
import { closestNames, didYouMean } from './suggest.js';

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
