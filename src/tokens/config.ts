import { type Diagnostic, error, type Where } from '../core/diagnostics.js';
import type { Manifest } from '../core/manifest.js';
import type { Snapshot } from '../core/snapshot.js';
import { isObject, type ParsedYaml, type PathSegment, parseYaml } from '../core/yaml.js';
import {
  DEFAULT_TOKENIZER,
  isTokenizerName,
  TOKENIZER_NAMES,
  type TokenizerName,
} from './tokenizer-names.js';

/**
 * The manifest's token sections:
 *
 * ```yaml
 * tokenizer: o200k_base      # o200k_base (default) | cl100k_base | claude (an estimate)
 * budgets:
 *   max_tokens: 8000         # whole prompt, every member of the pack
 *   warn_at: 0.9             # NEAR_BUDGET from this share of a maximum (default 0.9; or "90%")
 *   roles:                   # per-role maximum, instead of max_tokens
 *     architect: 12000
 *   layers:                  # per-layer maximum, for every member
 *     base: 1500
 * ```
 */
export interface Budgets {
  maxTokens?: number;
  /** Share of a maximum (0 < warnAt ≤ 1) from which a prompt or layer is near its budget. */
  warnAt: number;
  roles: Record<string, number>;
  layers: Record<string, number>;
}

export interface TokenConfig {
  tokenizer: TokenizerName;
  budgets?: Budgets;
}

export type BudgetStatus = 'ok' | 'near' | 'over';

export const DEFAULT_WARN_AT = 0.9;

/** Where a path inside the `budgets:`/`tokenizer:` sections is written. */
export type Locate = (path: PathSegment[], key?: boolean) => Where;

/**
 * Checks the shape of the manifest's top-level `tokenizer:` and `budgets:` values, with
 * positions from `locate` (paths start at the top level: `['budgets', 'roles', 'qa']`).
 * Called by the manifest parser, so a malformed section fails at load.
 */
export function checkTokenSections(top: Readonly<Record<string, unknown>>, locate: Locate): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (top.tokenizer !== undefined && !isTokenizerName(top.tokenizer)) {
    diagnostics.push(
      error(
        'BAD_MANIFEST',
        `tokenizer must be one of ${TOKENIZER_NAMES.join(', ')}, not ${JSON.stringify(top.tokenizer)}`,
        locate(['tokenizer']),
      ),
    );
  }
  if (top.budgets !== undefined) readBudgets(top.budgets, locate, diagnostics);
  return diagnostics;
}

/** The tokenizer and budgets a snapshot's manifest asks for (computed once per snapshot). */
export function tokenConfig(snapshot: Snapshot): TokenConfig {
  let config = configs.get(snapshot);
  if (!config) {
    config = configFromManifest(snapshot.manifest);
    configs.set(snapshot, config);
  }
  return config;
}

/** Reads the token sections of a resolved manifest; malformed parts are left out. */
export function configFromManifest(manifest: Manifest): TokenConfig {
  const { tokenizer, budgets } = manifest.extra;
  const config: TokenConfig = { tokenizer: isTokenizerName(tokenizer) ? tokenizer : DEFAULT_TOKENIZER };
  if (budgets !== undefined) {
    const read = readBudgets(budgets, () => ({}), []);
    if (read) config.budgets = read;
  }
  return config;
}

/** The whole-prompt maximum for a role: its override, else the pack's `max_tokens`. */
export function budgetFor(budgets: Budgets | undefined, role: string | undefined): number | undefined {
  if (!budgets) return undefined;
  if (role !== undefined && Object.hasOwn(budgets.roles, role)) return budgets.roles[role];
  return budgets.maxTokens;
}

/** `over` above the maximum, `near` from `warnAt` of it, else `ok`. */
export function budgetStatus(tokens: number, max: number, warnAt: number): BudgetStatus {
  if (tokens > max) return 'over';
  return tokens >= nearFrom(max, warnAt) ? 'near' : 'ok';
}

/** The token count from which a prompt with this maximum is near its budget. */
export function nearFrom(max: number, warnAt: number): number {
  return Math.ceil(max * warnAt);
}

/**
 * Where the `budgets:` section in force is written: the first manifest of the extends
 * chain (the pack's own first) that has one. Parses that file again (pure: the snapshot
 * holds its text); presets have no budgets.
 */
export function budgetsLocator(snapshot: Snapshot): Locate {
  for (const key of snapshot.manifest.chain) {
    const file = snapshot.files.get(key);
    if (!file) continue;
    const parsed: ParsedYaml = parseYaml(file.text, { file: key });
    const value = parsed.value;
    if (value && typeof value === 'object' && 'budgets' in value) return (path, k) => parsed.locate(path, k);
  }
  return () => ({});
}

// --- internal ---

const configs = new WeakMap<Snapshot, TokenConfig>();
const BUDGET_KEYS = ['max_tokens', 'warn_at', 'roles', 'layers'];

function readBudgets(raw: unknown, locate: Locate, diagnostics: Diagnostic[]): Budgets | undefined {
  const at = (path: PathSegment[], key = false) => locate(['budgets', ...path], key);
  const bad = (path: PathSegment[], message: string) => {
    diagnostics.push(error('BAD_MANIFEST', message, at(path)));
  };
  if (!isObject(raw)) {
    bad([], 'budgets must be a mapping (max_tokens, warn_at, roles, layers)');
    return undefined;
  }
  const budgets: Budgets = { warnAt: DEFAULT_WARN_AT, roles: {}, layers: {} };
  for (const key of Object.keys(raw)) {
    if (!BUDGET_KEYS.includes(key)) {
      diagnostics.push(
        error(
          'UNKNOWN_KEY',
          `unknown key ${JSON.stringify(key)} in budgets; expected one of: ${BUDGET_KEYS.join(', ')}`,
          at([key], true),
        ),
      );
    }
  }
  if (raw.max_tokens !== undefined) {
    const max = tokenCount(raw.max_tokens);
    if (max === undefined) bad(['max_tokens'], 'budgets.max_tokens must be a positive integer');
    else budgets.maxTokens = max;
  }
  if (raw.warn_at !== undefined) {
    const warnAt = share(raw.warn_at);
    if (warnAt === undefined)
      bad(['warn_at'], 'budgets.warn_at must be a share above 0 and at most 1 (0.9 or "90%")');
    else budgets.warnAt = warnAt;
  }
  for (const section of ['roles', 'layers'] as const) {
    const value = raw[section];
    if (value === undefined) continue;
    if (!isObject(value)) {
      bad(
        [section],
        `budgets.${section} must be a mapping of ${section === 'roles' ? 'role id' : 'layer id'} to tokens`,
      );
      continue;
    }
    for (const [id, v] of Object.entries(value)) {
      const max = tokenCount(v);
      if (max === undefined) bad([section, id], `budgets.${section}.${id} must be a positive integer`);
      else budgets[section][id] = max;
    }
  }
  return budgets;
}

function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function share(value: unknown): number | undefined {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\d+(\.\d+)?%$/.test(value)) n = Number(value.slice(0, -1)) / 100;
  return n !== undefined && n > 0 && n <= 1 ? n : undefined;
}
