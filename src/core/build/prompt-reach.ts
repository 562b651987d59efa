import { compileGlob } from '../pack/glob.js';
import type { LayerSource, Manifest } from '../pack/manifest.js';
import { pathPlaceholders } from '../pack/template.js';

// Which files of a pack can reach a prompt, a role or the fleet: a problem in a file's
// frontmatter is said only for these (a command or a skill beside the agents is no agent).

/**
 * Whether a file of the pack can be read by a layer or its frontmatter by the registry or
 * the fleet: a file a layer's file template can name for some role, team, agent or input, a
 * file a chain layer reads (its file names, in any folder), the file a path setting names,
 * a file the registry discovers roles in (`registry.discover`, and the files of the first
 * glob of `registry.discover.files` that matches a file, as discovery takes it), or an
 * identity file (`fleet.identities`). `promptPaths` are the pack's prompt files (not YAML),
 * `settingPaths` the pack files path settings name.
 *
 * @example
 * const reaches = promptReach(manifest, ['agents/a.md', 'commands/c.md'], []);
 * reaches('commands/c.md'); // false when the registry discovers roles in agents/**
 */
export function promptReach(
  manifest: Pick<Manifest, 'layers' | 'registry' | 'fleet'>,
  promptPaths: readonly string[],
  settingPaths: readonly string[],
): (path: string) => boolean {
  const sources = manifest.layers.flatMap((l) => [
    ...(l.source ? [l.source] : []),
    ...(l.variants ?? []).map((v) => v.source),
  ]);
  const templates = [
    ...sources.flatMap((s) => (s.kind === 'file' ? s.paths : [])),
    ...[manifest.registry.discover, manifest.fleet.identities].filter((t): t is string => t !== undefined),
  ]
    // `{role_source}` is the file a role came from: one the registry reads (below).
    .filter((t) => !pathPlaceholders(t).includes('role_source'))
    .map(templateRegExp);
  const chained = new Set(sources.flatMap((s: LayerSource) => (s.kind === 'chain' ? s.files : [])));
  const named = new Set(settingPaths);
  const discovered = discoveryGlob(manifest.registry.discoverFiles?.files ?? [], promptPaths);
  return (path) =>
    named.has(path) ||
    chained.has(path.slice(path.lastIndexOf('/') + 1)) ||
    (discovered?.(path) ?? false) ||
    templates.some((re) => re.test(path));
}

// --- internal ---

/** The first of `globs` that matches any of `paths`, as discovery picks it. */
function discoveryGlob(
  globs: readonly string[],
  paths: readonly string[],
): ((path: string) => boolean) | undefined {
  for (const glob of globs) {
    const match = compileGlob(glob);
    if (paths.some((p) => match(p))) return match;
  }
  return undefined;
}

/**
 * `roles/{role}.md` → a RegExp matching the paths the template can give: a role, team,
 * agent or role file is one name (no `/`); an input may be a path.
 */
function templateRegExp(template: string): RegExp {
  const path = template
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/');
  let source = '^';
  let last = 0;
  for (const m of path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    source += escapeRegExp(path.slice(last, m.index));
    source += isOneName(m[1]!) ? '[^/]+' : '.+';
    last = m.index + m[0].length;
  }
  return new RegExp(`${source}${escapeRegExp(path.slice(last))}$`);
}

function isOneName(placeholder: string): boolean {
  return (
    placeholder === 'role' || placeholder === 'team' || placeholder === 'agent' || placeholder === 'role_file'
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
