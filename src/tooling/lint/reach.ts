import { MANIFEST_FILE, type Snapshot } from '../../core/build/snapshot.js';
import { compileGlob } from '../../core/pack/glob.js';
import type { LayerDef, LayerSource } from '../../core/pack/manifest.js';
import { fillPath, pathPlaceholders } from '../../core/pack/template.js';
import { type Diagnostic, type Where, warning } from '../../core/text/diagnostics.js';
import { byteOrder } from '../../core/text/text.js';
import { parseYaml } from '../../core/text/yaml.js';

/** Root files a pack may hold for people, never read by a layer and never orphans. */
const DOC_FILE_RE = /^(?:README|LICENSE|LICENCE|CHANGELOG|NOTICE)(?:\.[A-Za-z0-9]+)?$/i;

/**
 * Files of the pack that nothing can ever read (ORPHAN_FILE warnings): not reachable by
 * any layer's file template for any role, team or agent, and not the manifest, the fleet
 * file, a role file, an identity or role file that declares agents or roles, or a verbs
 * registry (a YAML file with a top-level `verbs:` list, the input of `strata generate`).
 * Root README/LICENSE/CHANGELOG files are documentation and exempt.
 */
export function orphanDiagnostics(snapshot: Snapshot): Diagnostic[] {
  const { manifest } = snapshot;
  const templates = fileSources(manifest.layers).flatMap((s) => s.source.paths.map(templateRegExp));
  const named = new Set<string>();
  for (const { source } of fileSources(manifest.layers)) {
    if (source.pathSetting === undefined) continue;
    const value = snapshot.settings.values[source.pathSetting];
    if (typeof value === 'string' && value !== '') named.add(value.replace(/^\.\//, ''));
  }
  const registry = manifest.registry.files.map(compileGlob);
  const declaring = [manifest.registry.discover, manifest.fleet.identities]
    .filter((t): t is string => t !== undefined)
    .map(templateRegExp);
  const roleSources = new Set([...snapshot.roles.values()].map((r) => r.source));
  const discovered = (manifest.registry.discoverFiles?.files ?? []).map(compileGlob);
  const rules = (manifest.registry.discoverFiles?.rules ?? []).map((name) =>
    snapshot.layouts?.discovery.get(name),
  );
  const chained = new Set(
    manifest.layers.flatMap((l) =>
      [l.source, ...(l.variants ?? []).map((v) => v.source)].flatMap((s) =>
        s?.kind === 'chain' ? s.files : [],
      ),
    ),
  );
  const out: Diagnostic[] = [];
  for (const [path, file] of [...snapshot.files].sort(([a], [b]) => byteOrder(a, b))) {
    if (path === MANIFEST_FILE || path === manifest.fleet.file || manifest.chain.includes(path)) continue;
    if (DOC_FILE_RE.test(path) || named.has(path) || roleSources.has(path)) continue;
    // A file a discovery rule reads (a plugin's plugin.json, for its name).
    if (rules.some((rule) => rule?.reads(path))) continue;
    if (chained.has(path.slice(path.lastIndexOf('/') + 1)) || discovered.some((match) => match(path)))
      continue;
    if (templates.some((re) => re.test(path)) || declaring.some((re) => re.test(path))) continue;
    const isYaml = /\.ya?ml$/i.test(path);
    if (isYaml && registry.some((match) => match(path)) && isRoleFile(file.text, path, manifest.registry.key))
      continue;
    if (isYaml && hasTopKey(file.text, path, 'verbs')) continue;
    out.push(
      warning(
        'ORPHAN_FILE',
        'no layer of the manifest can ever read this file (and it is no role, fleet or verbs file)',
        {
          file: path,
        },
      ),
    );
  }
  return out;
}

/**
 * Layers whose file templates resolve to an existing file for no member of the fleet
 * (UNREACHABLE_LAYER warnings). Without a fleet, only templates that need no more than
 * the role are checked, against every known role.
 */
export function unreachableLayerDiagnostics(snapshot: Snapshot): Diagnostic[] {
  const fleet = snapshot.fleet.length > 0;
  if (!fleet && snapshot.roles.size === 0) return [];
  const contexts = fleet
    ? snapshot.fleet.map((a) => ({ role: a.role, team: a.team, agent: a.id }))
    : [...snapshot.roles.keys()].map((role) => ({ role, team: undefined, agent: undefined }));
  const out: Diagnostic[] = [];
  for (const layer of snapshot.manifest.layers) {
    const sources = fileSources([layer]).map((s) => s.source);
    if (sources.length === 0 || sources.some((s) => s.pathSetting !== undefined)) continue;
    const templates = sources.flatMap((s) => s.paths);
    const needs = new Set(templates.flatMap(pathPlaceholders));
    if (!fleet && (needs.has('team') || needs.has('agent'))) continue;
    const reached = contexts.some((ctx) => {
      const role = ctx.role === undefined ? undefined : snapshot.roles.get(ctx.role);
      const values = { ...ctx, role_file: role?.roleFile ?? ctx.role, role_source: role?.source };
      return templates.some((t) => {
        const filled = fillPath(t, values);
        return 'path' in filled && snapshot.files.has(normalise(filled.path));
      });
    });
    if (reached) continue;
    const who = fleet ? 'any fleet member' : 'any role';
    out.push(
      warning(
        'UNREACHABLE_LAYER',
        `layer ${layer.id}: ${templates.join(' | ')} resolves to no file for ${who}`,
        where(layer),
      ),
    );
  }
  return out;
}

// --- internal ---

type FileSource = Extract<LayerSource, { kind: 'file' }>;

function fileSources(layers: readonly LayerDef[]): Array<{ layer: LayerDef; source: FileSource }> {
  const out: Array<{ layer: LayerDef; source: FileSource }> = [];
  for (const layer of layers) {
    const sources = layer.variants ? layer.variants.map((v) => v.source) : layer.source ? [layer.source] : [];
    for (const source of sources) if (source.kind === 'file') out.push({ layer, source });
  }
  return out;
}

/** `roles/{role}.md` → a RegExp matching any value of every placeholder. */
function templateRegExp(template: string): RegExp {
  const parts = normalise(template).split(/\{[A-Za-z_][A-Za-z0-9_]*\}/);
  return new RegExp(`^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`);
}

/**
 * Whether a file the registry's globs select is a role file: it holds the registry's key,
 * or, with records at its top level (`key: ""`), it is a mapping or holds no document at all
 * (a file of only comments or nothing: no roles yet, not a stray file).
 */
function isRoleFile(text: string, file: string, key: string): boolean {
  if (key === '' && parseYaml(text, { file }).value == null) return true;
  return hasTopKey(text, file, key);
}

function hasTopKey(text: string, file: string, key: string): boolean {
  const value = parseYaml(text, { file }).value;
  return value !== null && typeof value === 'object' && !Array.isArray(value) && (key === '' || key in value);
}

function normalise(path: string): string {
  return path
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/');
}

/** A layer's manifest position, unless it comes from a built-in preset (not a pack file). */
function where(layer: LayerDef): Where {
  return layer.at.file?.startsWith('preset:') ? {} : layer.at;
}
