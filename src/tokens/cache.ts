import type { Snapshot } from '../core/build/snapshot.js';
import type { ComposeResult } from '../core/compose/compose.js';
import { table } from '../core/compose/explain.js';
import { memberLabel } from '../core/compose/members.js';
import { sha256 } from '../core/text/text.js';
import { tokenConfig } from './config.js';
import { countTokens } from './count.js';
import { composeFleet } from './fleet-composition.js';
import {
  betterOrder,
  type LayerStability,
  layerStability,
  layerText,
  type SharedPrefix,
  sharedPrefix,
  splitAfterLayers,
} from './prefix.js';
import { type EncodingName, getTokenizer, type Tokenizer, type TokenizerName } from './tokenizer.js';

/** One member's prompt, split where a shared prefix cache stops. */
export interface CacheMember {
  /** The member's key: agent id, `role:<id>`, or `(default)`. */
  key: string;
  agent?: string;
  role?: string;
  team?: string;
  /** Tokens of the whole prompt. */
  tokens: number;
  /** Tokens of the shared prefix (the same for every member). */
  shared: number;
  /** Tokens of the member's own part after the prefix (separator included). */
  own: number;
}

/** What a provider's prefix cache can do for a pack's fleet. */
export interface CacheReport {
  version: string;
  tokenizer: EncodingName;
  family?: TokenizerName;
  estimate: boolean;
  members: CacheMember[];
  /** Members that did not compose, with their diagnostic codes. */
  failed: Array<{ key: string; codes: string[] }>;
  /** The layers at the head of every member's prompt, their bytes and tokens. */
  prefix: { layers: string[]; bytes: number; tokens: number };
  /** Sum of the members' prompt tokens. */
  totalTokens: number;
  /** Prompt tokens a warm prefix cache serves: the prefix, once per member. */
  cachedTokens: number;
  /** cachedTokens / totalTokens, rounded to 4 decimals (0 with no tokens). */
  share: number;
  order: {
    /** Each manifest layer: the same for every member, different, or in no prompt. */
    layers: Array<{ id: string; state: LayerStability }>;
    /** Varying layers that stand before a stable one (they end the prefix early). */
    defeating: string[];
    /** The order that shares the most: stable layers first. Absent when already so. */
    better?: string[];
    /** Prefix tokens the better order would share. */
    betterPrefixTokens?: number;
  };
}

/**
 * Cache analysis over the fleet (docs/tokens.md; every
 * known role without one): the shared prefix, each member's own tokens, and the share of
 * all prompt tokens a prefix cache serves; plus the layer order that would share more,
 * when there is one. The tokenizer defaults to the manifest's.
 *
 * @example
 * const report = analyzeCache(snapshot);
 * console.log(formatCacheReport(report));
 */
export function analyzeCache(
  snapshot: Snapshot,
  tokenizer: Tokenizer = getTokenizer(tokenConfig(snapshot).tokenizer),
  options: { settings?: Readonly<Record<string, unknown>> } = {},
): CacheReport {
  const { composed, failed } = composeFleet(snapshot, options.settings);
  const results = composed.map((c) => c.result);
  const { prefix, headText, prefixTokens, stability, better, betterPrefixTokens } = prefixCache(
    snapshot,
    results,
    tokenizer,
  );
  const count = (text: string) => countTokens(snapshot, tokenizer, text, sha256(text));

  // 1. The prefix and each member's own part.
  const members = composed.map(({ member, result }): CacheMember => {
    const { rest } = splitAfterLayers(result, prefix.layers.length);
    const m: CacheMember = {
      key: member.key,
      tokens: countTokens(snapshot, tokenizer, result.text, result.sha256),
      shared: prefixTokens,
      own: count(rest),
    };
    if (member.agent !== undefined) m.agent = member.agent;
    if (member.role !== undefined) m.role = member.role;
    if (member.team !== undefined) m.team = member.team;
    return m;
  });
  const totalTokens = members.reduce((sum, m) => sum + m.tokens, 0);
  const cachedTokens = prefixTokens * members.length;

  // 2. The order: which layers are stable, and what a better order would share.
  const lastStable = stability.findLastIndex((l) => l.state === 'stable');
  const order: CacheReport['order'] = {
    layers: stability,
    defeating: stability
      .slice(0, Math.max(lastStable, 0))
      .filter((l) => l.state === 'varying')
      .map((l) => l.id),
  };
  if (better && betterPrefixTokens !== undefined) {
    order.better = better;
    order.betterPrefixTokens = betterPrefixTokens;
  }

  const report: CacheReport = {
    version: snapshot.version,
    tokenizer: tokenizer.encoding,
    estimate: tokenizer.estimate,
    members,
    failed: failed.map((f) => ({ key: f.member.key, codes: f.diagnostics.map((d) => d.code) })),
    prefix: { layers: prefix.layers, bytes: headText === '' ? 0 : prefix.bytes, tokens: prefixTokens },
    totalTokens,
    cachedTokens,
    share: totalTokens === 0 ? 0 : Math.round((cachedTokens / totalTokens) * 10_000) / 10_000,
    order,
  };
  if (tokenizer.name !== tokenizer.encoding) report.family = tokenizer.name;
  return report;
}

/** What a prefix cache shares across composed prompts, now and with the better layer order. */
export interface PrefixCache {
  /** The layers at the head of every prompt. */
  prefix: SharedPrefix;
  /** Their text (the head of the first prompt). */
  headText: string;
  prefixTokens: number;
  /** Each manifest layer: the same for every prompt, different, or in none. */
  stability: Array<{ id: string; state: LayerStability }>;
  /** The order that shares the most, when the manifest's does not. */
  better?: string[];
  /** Prefix tokens with that order. */
  betterPrefixTokens?: number;
}

/**
 * The shared prefix of the fleet's prompts (the pack's settings, or `options.settings`)
 * and its tokens, now and with the better layer order: two texts counted, whatever the
 * number of members ({@link analyzeCache} counts every member's prompt besides).
 */
export function fleetPrefix(
  snapshot: Snapshot,
  tokenizer: Tokenizer = getTokenizer(tokenConfig(snapshot).tokenizer),
  options: { settings?: Readonly<Record<string, unknown>> } = {},
): PrefixCache {
  const results = composeFleet(snapshot, options.settings).composed.map((c) => c.result);
  return prefixCache(snapshot, results, tokenizer);
}

/** The readable form of a cache report (`strata explain --cache`). */
export function formatCacheReport(report: CacheReport): string {
  const counted = report.estimate
    ? `${report.tokenizer} (estimate for ${report.family ?? 'this model family'}: no public tokenizer)`
    : report.tokenizer;
  const { prefix } = report;
  const rows = report.members.map((m) => [
    memberLabel(m),
    m.role ?? '',
    m.team ?? '',
    String(m.tokens),
    String(m.shared),
    String(m.own),
  ]);
  const lines = [
    `cache analysis  version ${report.version}  tokens ${counted}  ${report.members.length} member${report.members.length === 1 ? '' : 's'}`,
    `shared prefix: ${prefix.layers.length > 0 ? `${prefix.layers.join(', ')} (${prefix.tokens} tokens, ${prefix.bytes} bytes)` : 'none'}`,
    '',
    ...table([['member', 'role', 'team', 'tokens', 'shared', 'own'], ...rows]),
    '',
    `${report.totalTokens} prompt tokens in all; a warm prefix cache serves ${report.cachedTokens} (${percent(report.share)})`,
  ];
  for (const f of report.failed) lines.push(`not composed: ${f.key} (${f.codes.join(', ')})`);
  const { order } = report;
  if (order.better) {
    const gain =
      order.betterPrefixTokens !== undefined && report.totalTokens > 0
        ? `; its shared prefix would be ${order.betterPrefixTokens} tokens (${percent(
            Math.round(((order.betterPrefixTokens * report.members.length) / report.totalTokens) * 10_000) /
              10_000,
          )})`
        : '';
    lines.push(
      `order: ${order.defeating.join(', ')} ${order.defeating.length === 1 ? 'differs' : 'differ'} between members but ${order.defeating.length === 1 ? 'stands' : 'stand'} before layers that are the same for all`,
      `better order: ${order.better.join(', ')}${gain}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

// --- internal ---

function prefixCache(
  snapshot: Snapshot,
  results: readonly ComposeResult[],
  tokenizer: Tokenizer,
): PrefixCache {
  const prefix = sharedPrefix(results);
  const count = (text: string) => countTokens(snapshot, tokenizer, text, sha256(text));
  const headText = results[0] ? splitAfterLayers(results[0], prefix.layers.length).head : '';
  const stability = layerStability(snapshot.manifest, results);
  const out: PrefixCache = { prefix, headText, prefixTokens: count(headText), stability };
  const better = betterOrder(stability);
  if (better && results[0]) {
    out.better = better;
    const stableTexts = stability
      .filter((l) => l.state === 'stable')
      .map((l) => layerText(results[0]!, l.id) ?? '');
    out.betterPrefixTokens = count(stableTexts.join(snapshot.manifest.separator));
  }
  return out;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
