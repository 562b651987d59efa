import type { Snapshot } from '../core/build/snapshot.js';
import type { ComposeResult } from '../core/compose/compose.js';
import { type Member, memberLabel } from '../core/compose/members.js';
import { type Diagnostic, error, type Where, warning } from '../core/text/diagnostics.js';
import { knownList } from '../core/text/suggest.js';
import { fleetPrefix } from './cache.js';
import { budgetsLocator, tokenConfig } from './config.js';
import { type TokenizedLayer, withTokens } from './count.js';
import { composeFleet } from './fleet-composition.js';
import { betterOrder, layerStability } from './prefix.js';
import { getTokenizer, type Tokenizer, tokenizerAvailable, tokenizerMissing } from './tokenizer.js';

/** Options shared by the token checks. */
export interface TokenCheckOptions {
  /** Setting overrides to compose the fleet with (default: the snapshot's settings). */
  settings?: Readonly<Record<string, unknown>>;
}

/**
 * Budget check: every fleet member (every role without a fleet) over its whole-prompt
 * budget is an OVER_BUDGET error, near it a NEAR_BUDGET warning, naming the layers that
 * cost most; a layer over (near) its own budget likewise, once per layer text. Budgets
 * naming an unknown layer or role are errors too. The tokenizer defaults to the
 * manifest's.
 *
 * @example
 * const diagnostics = checkBudgets(snapshot);
 */
export function checkBudgets(
  snapshot: Snapshot,
  tokenizer?: Tokenizer,
  options: TokenCheckOptions = {},
): Diagnostic[] {
  return budgetDiagnostics(snapshot, composeFleet(snapshot, options.settings).composed, tokenizer);
}

/**
 * Cache-order check: a CACHE_ORDER warning when a layer that differs between fleet
 * members stands before layers that are the same for all (so a prefix cache cannot share
 * them), naming the better order and the shared-prefix tokens now and with it.
 */
export function checkCacheOrder(
  snapshot: Snapshot,
  tokenizer?: Tokenizer,
  options: TokenCheckOptions = {},
): Diagnostic[] {
  return cacheOrderDiagnostics(
    snapshot,
    composeFleet(snapshot, options.settings).composed,
    tokenizer,
    options,
  );
}

/** Composed prompts of pack members, as the token checks read them. */
export type ComposedMembers = ReadonlyArray<{ member: Member; result: ComposeResult }>;

/**
 * {@link checkBudgets} over members already composed (e.g. by `strata validate`), with the
 * manifest's tokenizer unless one is given.
 */
export function budgetDiagnostics(
  snapshot: Snapshot,
  composed: ComposedMembers,
  tokenizer?: Tokenizer,
): Diagnostic[] {
  const { budgets, tokenizer: configured } = tokenConfig(snapshot);
  if (!budgets) return [];
  if (!tokenizer && !tokenizerAvailable())
    return [
      {
        ...tokenizerMissing('the budgets are not checked', 'warning'),
        ...budgetsLocator(snapshot)(['budgets']),
      },
    ];
  const tk = tokenizer ?? getTokenizer(configured);
  const diagnostics: Diagnostic[] = [];
  const locate = budgetsLocator(snapshot);

  // 1. Budgets must name layers and roles that exist.
  const layerIds = snapshot.manifest.layers.map((l) => l.id);
  for (const id of Object.keys(budgets.layers)) {
    if (!layerIds.includes(id)) {
      const message = `budgets.layers: no layer ${JSON.stringify(id)}; layers: ${layerIds.join(', ')}`;
      diagnostics.push(error('BAD_MANIFEST', message, locate(['budgets', 'layers', id], true)));
    }
  }
  if (snapshot.roles.size > 0) {
    for (const id of Object.keys(budgets.roles)) {
      if (snapshot.roles.has(id)) continue;
      const message = `budgets.roles: unknown role ${JSON.stringify(id)}; known roles: ${knownList([...snapshot.roles.keys()])}`;
      diagnostics.push(error('UNKNOWN_ROLE', message, locate(['budgets', 'roles', id], true)));
    }
  }

  // 2. Every member's whole prompt; every over-budget layer text once.
  const counted = tk.estimate ? `${tk.encoding}, an estimate for ${tk.name}` : tk.encoding;
  const layersSeen = new Map<string, { layer: TokenizedLayer; members: string[] }>();
  for (const { member, result } of composed) {
    const tokenized = withTokens(result, snapshot, tk);
    const budget = tokenized.tokens.budget;
    const who = `${memberLabel(member)}${member.agent !== undefined && result.role !== undefined ? ` (${result.role})` : ''}`;
    if (budget && budget.status !== 'ok') {
      const costliest = tokenized.layers
        .filter((l) => l.tokens !== undefined)
        .sort((a, b) => b.tokens! - a.tokens!)
        .slice(0, 3)
        .map((l) => `${l.id} ${l.tokens}`);
      const overridden = result.role !== undefined && Object.hasOwn(budgets.roles, result.role);
      const at = locate(overridden ? ['budgets', 'roles', result.role!] : ['budgets', 'max_tokens']);
      const message = `${who}: ${tokenized.tokens.total} tokens, ${budget.status} its budget of ${budget.max} (${counted}); costliest layers: ${costliest.join(', ')}`;
      diagnostics.push(
        budget.status === 'over' ? error('OVER_BUDGET', message, at) : warning('NEAR_BUDGET', message, at),
      );
    }
    for (const layer of tokenized.layers) {
      if (!layer.budget || layer.budget.status === 'ok') continue;
      const key = `${layer.id}\0${layer.sha256}`;
      const seen = layersSeen.get(key);
      if (seen) seen.members.push(memberLabel(member));
      else layersSeen.set(key, { layer, members: [memberLabel(member)] });
    }
  }
  for (const { layer, members } of layersSeen.values()) {
    const { max, status } = layer.budget!;
    const from = layer.source ? ` (${layer.source})` : '';
    const message = `layer ${layer.id}${from}: ${layer.tokens} tokens, ${status} its budget of ${max} (${counted}); in the prompts of ${members.join(', ')}`;
    const at: Where =
      layer.source && layer.kind === 'file'
        ? { file: layer.source }
        : locate(['budgets', 'layers', layer.id]);
    diagnostics.push(
      status === 'over' ? error('OVER_BUDGET', message, at) : warning('NEAR_BUDGET', message, at),
    );
  }
  return diagnostics;
}

/** {@link checkCacheOrder} over members already composed. */
export function cacheOrderDiagnostics(
  snapshot: Snapshot,
  composed: ComposedMembers,
  tokenizer?: Tokenizer,
  options: TokenCheckOptions = {},
): Diagnostic[] {
  if (composed.length < 2) return [];
  const stability = layerStability(
    snapshot.manifest,
    composed.map((c) => c.result),
  );
  const better = betterOrder(stability);
  if (!better) return [];
  const lastStable = stability.findLastIndex((l) => l.state === 'stable');
  const defeating = stability
    .slice(0, lastStable)
    .filter((l) => l.state === 'varying')
    .map((l) => l.id);
  const firstAt = stability.findIndex((l) => l.id === defeating[0]);
  const after = stability
    .slice(firstAt)
    .filter((l) => l.state === 'stable')
    .map((l) => l.id);
  const gain = !tokenizer && !tokenizerAvailable() ? '' : cacheGain(snapshot, options, tokenizer);
  const first = snapshot.manifest.layers.find((l) => l.id === defeating[0]);
  const at: Where = first && !first.at.file?.startsWith('preset:') ? first.at : {};
  const verb = defeating.length === 1 ? ['differs', 'stands'] : ['differ', 'stand'];
  const message = `layer order defeats prefix caching: ${defeating.join(', ')} ${verb[0]} between the ${composed.length} members but ${verb[1]} before ${after.join(', ')}, the same for all; better order: ${better.join(', ')}${gain}`;
  return [warning('CACHE_ORDER', message, at)];
}

// --- internal ---

/** `; shared prefix N tokens now, M with the better order (encoding)`. */
function cacheGain(snapshot: Snapshot, options: TokenCheckOptions, tokenizer?: Tokenizer): string {
  const tk = tokenizer ?? getTokenizer(tokenConfig(snapshot).tokenizer);
  const shared = fleetPrefix(snapshot, tk, options);
  return `; shared prefix ${shared.prefixTokens} tokens now, ${shared.betterPrefixTokens ?? shared.prefixTokens} with the better order (${tk.estimate ? `an estimate for ${tk.name}, ` : ''}${tk.encoding})`;
}
