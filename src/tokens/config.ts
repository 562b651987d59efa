import type { Snapshot } from '../core/build/snapshot.js';
import type { Manifest } from '../core/pack/manifest.js';
import type { Locate } from '../core/pack/manifest-tokens.js';
import { DEFAULT_TOKENIZER, type TokenizerName } from '../core/pack/tokenizer-names.js';

/** The budgets a manifest sets (its `budgets:` section without the positions). */
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

export const BUDGET_STATUSES = ['ok', 'near', 'over'] as const;
export type BudgetStatus = (typeof BUDGET_STATUSES)[number];

export { DEFAULT_WARN_AT, type Locate } from '../core/pack/manifest-tokens.js';

/** The tokenizer and budgets a snapshot's manifest asks for (computed once per snapshot). */
export function tokenConfig(snapshot: Snapshot): TokenConfig {
  let config = configs.get(snapshot);
  if (!config) {
    config = configFromManifest(snapshot.manifest);
    configs.set(snapshot, config);
  }
  return config;
}

/** The tokenizer and budgets of a resolved manifest (parsed and checked at load). */
export function configFromManifest(manifest: Manifest): TokenConfig {
  const config: TokenConfig = { tokenizer: manifest.tokenizer ?? DEFAULT_TOKENIZER };
  if (manifest.budgets) {
    const { at: _, ...budgets } = manifest.budgets;
    config.budgets = budgets;
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
  // The product is a decimal share of a whole count: drop the last binary digits' noise
  // (0.55 × 100 is 55.00000000000001), so a whole count is not rounded up past itself.
  return Math.ceil(Number((max * warnAt).toPrecision(15)));
}

/**
 * Where the `budgets:` section in force, and each of its entries, is written (from the
 * positions kept at load). Paths start at the top level: `['budgets', 'roles', 'qa']`;
 * `key` asks for the entry's key rather than its value.
 */
export function budgetsLocator(snapshot: Snapshot): Locate {
  const at = snapshot.manifest.budgets?.at;
  if (!at) return () => ({});
  return (path, key = false) => {
    const [, section, id] = path;
    if (section === 'max_tokens') return at.maxTokens ?? at.section;
    if (section === 'warn_at') return at.warnAt ?? at.section;
    if ((section === 'roles' || section === 'layers') && typeof id === 'string') {
      const entry = Object.hasOwn(at[section], id) ? at[section][id] : undefined;
      if (entry) return key ? entry.key : entry.value;
    }
    return at.section;
  };
}

// --- internal ---

const configs = new WeakMap<Snapshot, TokenConfig>();
