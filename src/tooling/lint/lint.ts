import { fleetById } from '../../core/build/derived.js';
import type { BuildInput, LoadResult } from '../../core/build/snapshot.js';
import type { ComposeOutcome } from '../../core/compose/compose.js';
import { composeMember, folderMembers, memberLabel, packMembers } from '../../core/compose/members.js';
import { namedGlobsMatchNothing } from '../../core/pack/named-missing.js';
import { pathSelector } from '../../core/pack/select.js';
import type { SettingDef, SettingValue } from '../../core/pack/settings.js';
import { type Diagnostic, error, info, sortDiagnostics, warning } from '../../core/text/diagnostics.js';
import { decodeText } from '../../core/text/text.js';
import { buildSnapshot } from '../../engine/default-engine.js';
import { agentConfig } from '../agent-config/agent-config.js';
import { isGeneratedFragment, parseVerbRegistry, renderVerbFragments } from '../verbs/verbs.js';
import { jsonBlockDiagnostics } from './json-block.js';
import type { LintCheck, LintContext } from './lint-check.js';
import { filePlaceholders } from './placeholders.js';
import { orphanDiagnostics, unreachableLayerDiagnostics } from './reach.js';
import { composeWithStandIns } from './stand-ins.js';
import { cacheOrder, tokenBudgets } from './token-checks.js';
import { ucxlDiagnostics } from './ucxl.js';

export type { LintCheck, LintContext } from './lint-check.js';

/**
 * A fenced ```` ```json ```` block that does not parse (JSON_BLOCK errors), in a file some
 * member's prompt holds (every file, when the pack does not load).
 */
export const jsonBlocks: LintCheck = (ctx) =>
  promptTexts(ctx).flatMap(([path, text]) => jsonBlockDiagnostics(path, text));

/** A `ucxl://` address that does not parse (BAD_UCXL warnings), in the same files as {@link jsonBlocks}. */
export const ucxlAddresses: LintCheck = (ctx) =>
  promptTexts(ctx).flatMap(([path, text]) => ucxlDiagnostics(path, text));

/** Files no layer can ever read (ORPHAN_FILE warnings). */
export const orphanFiles: LintCheck = (ctx) => (ctx.snapshot ? orphanDiagnostics(ctx.snapshot) : []);

/**
 * `registry.files` of the pack's own manifest none of whose globs matches a pack file: a
 * BAD_ROLE warning at the key, with the closest YAML file names (`role.yaml` for
 * `roles.yaml`). One glob matching is enough (alternatives: `[roles.yaml, roles.yml]`).
 */
export const namedRoleFiles: LintCheck = (ctx) => {
  if (!ctx.snapshot) return [];
  const named = ctx.snapshot.manifest.named.filter((n) => n.by === 'registry.files');
  const known = (ctx.readPaths ?? [...ctx.texts.keys()]).filter((p) => /\.ya?ml$/i.test(p));
  const found = namedGlobsMatchNothing(named, 'BAD_ROLE', [...ctx.snapshot.files.keys()], known);
  return found ? [found] : [];
};

/** Layer file templates that resolve for no fleet member (UNREACHABLE_LAYER warnings). */
export const unreachableLayers: LintCheck = (ctx) =>
  ctx.snapshot ? unreachableLayerDiagnostics(ctx.snapshot) : [];

/**
 * Every member composes (COMPOSE_FAILED errors), with the pack's settings and with every
 * combination of its boolean and enum settings (up to {@link MAX_SETTING_COMBINATIONS};
 * beyond that, each value of one setting at a time), inputs that are not given standing in.
 * A fleet member whose prompt is the fallback text is a FALLBACK_USED warning.
 */
export const memberComposes: LintCheck = (ctx) => {
  const snapshot = ctx.snapshot;
  if (!snapshot) return [];
  const out: Diagnostic[] = [];
  const combos = settingCombinations(snapshot.manifest.settings, snapshot.settings.values);
  for (const { member, outcome, vars = ctx.vars, standIns = [] } of ctx.members) {
    const at = (member.agent === undefined ? undefined : fleetById(snapshot).get(member.agent))?.at ?? {};
    let failure: { outcome: ComposeOutcome; settings?: Record<string, SettingValue> } | undefined;
    if (!outcome.ok) failure = { outcome };
    for (const settings of combos) {
      if (failure) break;
      const other = composeMember(snapshot, member, settings, vars);
      if (!other.ok) failure = { outcome: other, settings };
    }
    if (failure && !failure.outcome.ok) {
      const withSettings = failure.settings
        ? ` with ${Object.entries(failure.settings)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(' ')}`
        : '';
      const stoodIn = standIns.length > 0 ? ` (stand-ins for inputs ${standIns.join(', ')})` : '';
      const why = failure.outcome.diagnostics.map((d) => `${d.code} ${d.message}`).join('; ');
      out.push(
        error(
          'COMPOSE_FAILED',
          `${memberLabel(member)} does not compose${withSettings}${stoodIn}: ${why}`,
          at,
        ),
      );
    } else if (outcome.ok && outcome.result.fallback && member.key !== '(default)') {
      out.push(
        warning(
          'FALLBACK_USED',
          `${memberLabel(member)}: no layer is included; the prompt is the fallback text`,
          at,
        ),
      );
    }
  }
  return out;
};

/**
 * The request inputs a compose needs that validate was not given (`--var`): one
 * INPUTS_NEEDED note naming each input and the members that use it. The members were
 * checked with stand-ins, so a pack whose agents take run inputs validates without them.
 */
export const inputsNeeded: LintCheck = (ctx) => {
  const byInput = new Map<string, string[]>();
  for (const { member, standIns = [] } of ctx.members)
    for (const name of standIns) byInput.set(name, [...(byInput.get(name) ?? []), memberLabel(member)]);
  if (byInput.size === 0) return [];
  const listed = [...byInput.keys()].sort().map((name) => {
    const members = byInput.get(name)!;
    const shown = members.slice(0, MEMBERS_SHOWN).join(', ');
    const more = members.length > MEMBERS_SHOWN ? ` and ${members.length - MEMBERS_SHOWN} more` : '';
    return `${name} (${shown}${more})`;
  });
  return [
    info(
      'INPUTS_NEEDED',
      `a compose needs the request inputs ${listed.join(', ')}; checked here with stand-ins (give --var NAME=VALUE to check with values; API: vars.NAME)`,
    ),
  ];
};

/** Members named per input in an INPUTS_NEEDED note. */
const MEMBERS_SHOWN = 3;

/** Every fleet member's (or role's) agent config is valid (errors from {@link agentConfig}). */
export const agentConfigs: LintCheck = (ctx) => {
  const snapshot = ctx.snapshot;
  if (!snapshot) return [];
  const requests =
    snapshot.fleet.length > 0
      ? snapshot.fleet.filter((a) => a.role !== undefined).map((a) => ({ agent: a.id }))
      : [...snapshot.roles.keys()].map((role) => ({ role }));
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const request of requests) {
    const outcome = agentConfig(snapshot, request);
    if (outcome.ok) continue;
    for (const d of outcome.diagnostics) {
      const key = `${d.code} ${d.file} ${d.message}`;
      if (!seen.has(key)) out.push(d);
      seen.add(key);
    }
  }
  return out;
};

/**
 * What a member's compose says about the pack: a layer whose `missing: warn` file is gone
 * (LAYER_MISSING), a fleet member's team no file names (UNKNOWN_TEAM), a layer cut by its
 * byte budget (TRUNCATED: a nested AGENTS.md past `project_doc_max_bytes`), a role its
 * framework sends no system message (NO_SYSTEM_MESSAGE), a runtime's placeholder kept as
 * written (PLACEHOLDER_KEPT). One warning per
 * problem, naming the members it touches.
 */
export const memberWarnings: LintCheck = (ctx) => {
  const byProblem = new Map<string, { d: Diagnostic; members: string[] }>();
  for (const { member, outcome } of ctx.members) {
    if (!outcome.ok) continue;
    for (const d of outcome.result.diagnostics) {
      if (!MEMBER_WARNINGS.has(d.code)) continue;
      const key = `${d.code}\0${d.file ?? ''}\0${d.message}`;
      const entry = byProblem.get(key) ?? { d, members: [] };
      entry.members.push(memberLabel(member));
      byProblem.set(key, entry);
    }
  }
  return [...byProblem.values()].map(({ d, members }) => ({
    ...d,
    message: `${d.message} (for ${members.join(', ')})`,
  }));
};

const MEMBER_WARNINGS: ReadonlySet<string> = new Set([
  'LAYER_MISSING',
  'UNKNOWN_TEAM',
  'TRUNCATED',
  'NO_SYSTEM_MESSAGE',
  'PLACEHOLDER_KEPT',
]);

/**
 * A verbs registry in the pack (a YAML file with a top-level `verbs:` list) parses
 * (BAD_REGISTRY errors), and the fragments in the `_generated/` folder beside it are the
 * ones `strata generate` renders from it (BAD_REGISTRY warnings for each stale file).
 */
export const verbRegistries: LintCheck = (ctx) => {
  const out: Diagnostic[] = [];
  for (const [path, text] of ctx.texts) {
    if (!/\.ya?ml$/i.test(path) || !/^verbs:/m.test(text)) continue;
    const { verbs, diagnostics } = parseVerbRegistry(text, path);
    out.push(...diagnostics);
    if (diagnostics.length > 0) continue;
    const folder = `${path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : ''}_generated/`;
    const existing = [...ctx.texts.keys()].filter(
      (p) => p.startsWith(folder) && !p.slice(folder.length).includes('/'),
    );
    if (existing.length === 0) continue;
    const rendered = renderVerbFragments(verbs);
    for (const [name, body] of rendered) {
      const file = `${folder}${name}`;
      const now = ctx.texts.get(file);
      if (now === body) continue;
      const why = now === undefined ? 'is missing' : 'differs from what the registry renders';
      out.push(
        warning('BAD_REGISTRY', `${file} ${why}; run strata generate`, {
          file: now === undefined ? path : file,
        }),
      );
    }
    for (const file of existing) {
      const name = file.slice(folder.length);
      if (!rendered.has(name) && isGeneratedFragment(name, ctx.texts.get(file)!)) {
        out.push(
          warning('BAD_REGISTRY', `stale fragment: ${path} no longer makes it; run strata generate --prune`, {
            file,
          }),
        );
      }
    }
  }
  return out;
};

/**
 * The checks `strata validate` runs after loading, in order. Append a check here to
 * extend validate (budget and cache-order checks of the tokens feature belong here).
 */
export const LINT_CHECKS: LintCheck[] = [
  jsonBlocks,
  ucxlAddresses,
  filePlaceholders,
  orphanFiles,
  namedRoleFiles,
  unreachableLayers,
  memberComposes,
  inputsNeeded,
  memberWarnings,
  agentConfigs,
  verbRegistries,
  tokenBudgets,
  cacheOrder,
];

/** Above this many combinations of boolean and enum settings, validate varies one setting at a time. */
export const MAX_SETTING_COMBINATIONS = 64;

/**
 * Lints a whole pack (pure): every load diagnostic of the core, then every check of
 * `checks`. Returns the snapshot when the pack loads, and every finding sorted by file
 * and position.
 *
 * @example
 * const read = await readPackDir('examples/roboco');
 * const { diagnostics } = lintPack({ files: read.files, readDiagnostics: read.diagnostics });
 */
export function lintPack(
  input: BuildInput,
  checks: readonly LintCheck[] = LINT_CHECKS,
  options: { vars?: Readonly<Record<string, string>> } = {},
): LoadResult {
  const loaded = buildSnapshot(input);
  if (loaded.needs) return loaded;
  // Only the pack's files: a project root read for its AGENTS.md files holds other files
  // (read so that a file making it another layout is seen) that no prompt is made of.
  const inPack = packPaths(loaded);
  const texts = new Map<string, string>();
  for (const [path, bytes] of input.files) {
    if (!inPack(path)) continue;
    const text = decodeText(bytes);
    if (text !== undefined) texts.set(path, text);
  }
  const snapshot = loaded.snapshot;
  const members = snapshot
    ? [...packMembers(snapshot), ...folderMembers(snapshot, options.vars)].map((member) => ({
        member,
        ...composeWithStandIns(snapshot, member, options.vars),
      }))
    : [];
  const ctx: LintContext = { texts, members, readPaths: [...input.files.keys()] };
  if (options.vars) ctx.vars = options.vars;
  if (snapshot) ctx.snapshot = snapshot;
  const diagnostics = [...loaded.diagnostics, ...checks.flatMap((check) => check(ctx))];
  const result: LoadResult = { diagnostics: sortDiagnostics(dedupe(diagnostics)) };
  if (snapshot) result.snapshot = snapshot;
  // A failed build's sound manifest: the reader reads again with its scope and hidden folders.
  else if (loaded.manifest) result.manifest = loaded.manifest;
  return result;
}

// --- internal ---

/**
 * The texts of the files a prompt of the pack holds: those some member composes with the
 * pack's settings or with any combination validate tries (a doctrine file gated off by
 * default too), not a skill, a command or a document beside the agents. Every text when
 * the pack does not load: there is no prompt to go by.
 */
function promptTexts(ctx: LintContext): Array<[string, string]> {
  const snapshot = ctx.snapshot;
  if (!snapshot) return [...ctx.texts];
  const files = new Set<string>();
  const add = (outcome: ComposeOutcome) => {
    if (!outcome.ok) return;
    for (const layer of outcome.result.layers) {
      if (!layer.included) continue;
      if (layer.kind === 'file' && layer.source !== undefined) files.add(layer.source);
      for (const part of layer.parts ?? []) if (part.included) files.add(part.source);
    }
  };
  const combos = settingCombinations(snapshot.manifest.settings, snapshot.settings.values);
  for (const { member, outcome, vars = ctx.vars } of ctx.members) {
    add(outcome);
    for (const settings of combos) add(composeMember(snapshot, member, settings, vars));
  }
  return [...ctx.texts].filter(([path]) => files.has(path));
}

/** Setting overrides to try: the full product of boolean/enum values, or one setting at a time. */
function settingCombinations(
  defs: readonly SettingDef[],
  current: Record<string, SettingValue>,
): Array<Record<string, SettingValue>> {
  const axes = defs
    .filter((d) => d.type === 'boolean' || d.type === 'enum')
    .map((d) => ({ name: d.name, values: d.type === 'boolean' ? [false, true] : [...(d.values ?? [])] }));
  const total = axes.reduce((n, a) => n * a.values.length, 1);
  const combos: Array<Record<string, SettingValue>> = [];
  if (total <= MAX_SETTING_COMBINATIONS) {
    let partial: Array<Record<string, SettingValue>> = [{}];
    for (const axis of axes)
      partial = partial.flatMap((p) => axis.values.map((v) => ({ ...p, [axis.name]: v })));
    combos.push(...partial);
  } else {
    for (const axis of axes) for (const v of axis.values) combos.push({ [axis.name]: v });
  }
  return combos.filter((c) => Object.entries(c).some(([k, v]) => current[k] !== v));
}

/**
 * Which files read are the pack's: a snapshot's files, else those the sound manifest of a
 * failed build selects, else (no manifest) every file read.
 */
function packPaths(loaded: LoadResult): (path: string) => boolean {
  const snapshot = loaded.snapshot;
  if (snapshot) return (path) => snapshot.files.has(path);
  const manifest = loaded.manifest;
  if (!manifest) return () => true;
  const chain = new Set(manifest.chain.filter((k) => !k.startsWith('preset:')));
  const selects = pathSelector(manifest);
  return (path) => chain.has(path) || selects(path);
}

function dedupe(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = JSON.stringify([d.code, d.severity, d.file, d.line, d.col, d.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
