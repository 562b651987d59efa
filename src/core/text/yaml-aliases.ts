import type { Alias, Document, Node } from 'yaml';
import { yamlPackage } from './yaml-package.js';

// YAML aliases bounded by what they expand to, not by how many there are. A file of
// 1,000 records that each merge one `&defaults` block (`<<: *defaults`) is a few thousand
// nodes once expanded, and PyYAML (what Python tools read it with) reads it; an alias bomb
// (each level aliasing the one before ten times) expands to billions, and a node that
// holds an alias of itself never ends. The first is read, the others are refused.

/**
 * Most nodes the aliases of one YAML text may add to its value, each alias counted as a
 * copy of the node it names (the aliases inside that node expanded too).
 */
export const MAX_YAML_ALIAS_NODES = 200_000;

/**
 * Most nodes the aliases of all the YAML texts of one pack (its YAML files and
 * frontmatter) may add to their values together: each file within its own limit, a pack
 * of thousands of small files each adding nearly {@link MAX_YAML_ALIAS_NODES} would still
 * make billions.
 */
export const MAX_PACK_ALIAS_NODES = 1_000_000;

/** What is left of a pack's {@link MAX_PACK_ALIAS_NODES} while its files are read (one build's). */
export interface AliasBudget {
  left: number;
}

/** Why a document's aliases are refused, and where: the alias that crossed the line. */
export interface AliasProblem {
  offset: number;
  message: string;
}

/** A document's aliases resolved: the node each names, and where each sits. */
export interface ResolvedAliases {
  problem?: AliasProblem;
  /** The node each alias names (the last one with its anchor before it). */
  targets: Map<Alias, Node>;
  /** Each alias's place in its parent (a sequence's items, a pair's key or value). */
  slots: Array<{ holder: Record<string | number, unknown>; at: string | number; alias: Alias }>;
  /** The nodes the aliases add (up to where a problem stopped the count). */
  added: number;
  /** Set when the problem is the pack's limit (`packLeft`), not the file's. */
  overPack?: true;
}

/**
 * Resolves and sizes the aliases of a parsed document in one pass over its nodes (the
 * size of every anchored node kept, so an alias costs a lookup). An alias that names no
 * anchor set before it, one inside the node it names (a value that would hold itself, a
 * mapping merging itself), or aliases adding more than {@link MAX_YAML_ALIAS_NODES} nodes
 * (or more than `packLeft`, what is left of the pack's) is the `problem`, at the alias that
 * crossed the line.
 */
export function resolveAliases(doc: Document.Parsed, packLeft = Number.POSITIVE_INFINITY): ResolvedAliases {
  const { isAlias, isMap, isNode, isPair, isSeq } = yamlPackage();
  const out: ResolvedAliases = { targets: new Map(), slots: [], added: 0 };
  const anchors = new Map<string, Node>();
  const sizes = new Map<Node, number>();
  const open = new Set<Node>();
  let added = 0;
  const fail = (offset: number, message: string) => {
    out.problem ??= { offset, message: `refused: ${message}` };
    return 1;
  };
  const size = (node: unknown, holder: Record<string | number, unknown>, at: string | number): number => {
    if (out.problem || !isNode(node)) return 1;
    if (isAlias(node)) {
      const offset = node.range?.[0] ?? 0;
      const name = node.source;
      const target = anchors.get(name);
      if (!target) return fail(offset, `the alias *${name} names no anchor (&${name}) set before it`);
      if (open.has(target))
        return fail(
          offset,
          `the alias *${name} is inside the node it names (&${name}): a value that holds itself`,
        );
      out.targets.set(node, target);
      out.slots.push({ holder, at, alias: node });
      const n = sizes.get(target) ?? 1;
      added += n;
      out.added = added;
      if (added > MAX_YAML_ALIAS_NODES)
        return fail(
          offset,
          `the aliases expand the value past ${MAX_YAML_ALIAS_NODES} nodes (each counted as a copy of what it names): a resource exhaustion attack`,
        );
      if (added > packLeft) {
        out.overPack = true;
        return fail(
          offset,
          `the aliases of the pack's YAML files and frontmatter together expand past ${MAX_PACK_ALIAS_NODES} nodes (each counted as a copy of what it names): a resource exhaustion attack`,
        );
      }
      return n;
    }
    // Set before the node's children are sized: an alias of it inside it is found open.
    if (node.anchor) anchors.set(node.anchor, node);
    if (!isMap(node) && !isSeq(node)) return 1;
    open.add(node);
    let n = 1;
    const items = node.items as unknown[] as Record<number, unknown>;
    node.items.forEach((item, i) => {
      if (isPair(item)) {
        const pair = item as unknown as Record<string, unknown>;
        n += size(item.key, pair, 'key') + size(item.value, pair, 'value');
      } else n += size(item, items, i);
    });
    open.delete(node);
    if (node.anchor) sizes.set(node, n);
    return n;
  };
  size(doc.contents, doc as unknown as Record<string, unknown>, 'contents');
  return out;
}

/**
 * Runs `work` (a `toJS`) with every alias replaced by the node it names, then puts back
 * the aliases still where they were: the `yaml` package looks each alias up by scanning every anchor and alias
 * before it, which is quadratic in a crew file's 1,000 `<<: *defaults`. Each alias then
 * becomes a copy of what it names (bounded by {@link resolveAliases}) instead of a shared
 * object.
 */
export function withAliasesExpanded<T>(aliases: ResolvedAliases, work: () => T): T {
  for (const { holder, at, alias } of aliases.slots) holder[at] = aliases.targets.get(alias);
  try {
    return work();
  } finally {
    // Where the work moved a node (merge keys gathered into one list), it stays moved.
    for (const { holder, at, alias } of aliases.slots)
      if (holder[at] === aliases.targets.get(alias)) holder[at] = alias;
  }
}
