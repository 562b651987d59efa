import { type Diagnostic, error, type Where } from '../text/diagnostics.js';
import { isObject, type PathSegment } from '../text/yaml.js';
import { isTokenizerName, TOKENIZER_NAMES, type TokenizerName } from './tokenizer-names.js';

/**
 * The manifest's token sections, parsed once at load into typed fields that remember
 * where each value is written:
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
export interface BudgetsSection {
  maxTokens?: number;
  /** Share of a maximum (0 < warnAt ≤ 1) from which a prompt or layer is near its budget. */
  warnAt: number;
  roles: Record<string, number>;
  layers: Record<string, number>;
  /** Where the section and each of its entries are written. */
  at: BudgetPositions;
}

/** Positions of a `budgets:` section: `key` is an entry's key, `value` its value. */
export interface BudgetPositions {
  section: Where;
  maxTokens?: Where;
  warnAt?: Where;
  roles: Record<string, { key: Where; value: Where }>;
  layers: Record<string, { key: Where; value: Where }>;
}

export const DEFAULT_WARN_AT = 0.9;

/** Where a path of the manifest document is written (`key`: the key rather than the value). */
export type Locate = (path: PathSegment[], key?: boolean) => Where;

/**
 * Parses and checks the top-level `tokenizer:` and `budgets:` values of one manifest
 * document; malformed parts are diagnostics (BAD_MANIFEST, UNKNOWN_KEY) and left out.
 */
export function parseTokenSections(
  top: Readonly<Record<string, unknown>>,
  locate: Locate,
): { tokenizer?: TokenizerName; budgets?: BudgetsSection; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const out: { tokenizer?: TokenizerName; budgets?: BudgetsSection; diagnostics: Diagnostic[] } = {
    diagnostics,
  };
  if (top.tokenizer !== undefined) {
    if (isTokenizerName(top.tokenizer)) out.tokenizer = top.tokenizer;
    else
      diagnostics.push(
        error(
          'BAD_MANIFEST',
          `tokenizer must be one of ${TOKENIZER_NAMES.join(', ')}, not ${JSON.stringify(top.tokenizer)}`,
          locate(['tokenizer']),
        ),
      );
  }
  if (top.budgets !== undefined) {
    const budgets = readBudgets(top.budgets, locate, diagnostics);
    if (budgets) out.budgets = budgets;
  }
  return out;
}

// --- internal ---

const BUDGET_KEYS = ['max_tokens', 'warn_at', 'roles', 'layers'];

function readBudgets(raw: unknown, locate: Locate, diagnostics: Diagnostic[]): BudgetsSection | undefined {
  const at = (path: PathSegment[], key = false) => locate(['budgets', ...path], key);
  const bad = (path: PathSegment[], message: string) => {
    diagnostics.push(error('BAD_MANIFEST', message, at(path)));
  };
  if (!isObject(raw)) {
    bad([], 'budgets must be a mapping (max_tokens, warn_at, roles, layers)');
    return undefined;
  }
  const budgets: BudgetsSection = {
    warnAt: DEFAULT_WARN_AT,
    roles: {},
    layers: {},
    at: { section: at([]), roles: {}, layers: {} },
  };
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
    else {
      budgets.maxTokens = max;
      budgets.at.maxTokens = at(['max_tokens']);
    }
  }
  if (raw.warn_at !== undefined) {
    const warnAt = share(raw.warn_at);
    if (warnAt === undefined)
      bad(['warn_at'], 'budgets.warn_at must be a share above 0 and at most 1 (0.9 or "90%")');
    else {
      budgets.warnAt = warnAt;
      budgets.at.warnAt = at(['warn_at']);
    }
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
      if (max === undefined) {
        bad([section, id], `budgets.${section}.${id} must be a positive integer`);
        continue;
      }
      define(budgets[section], id, max);
      define(budgets.at[section], id, { key: at([section, id], true), value: at([section, id]) });
    }
  }
  return budgets;
}

/** Sets an own property even for a name such as `__proto__`. */
function define<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
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
