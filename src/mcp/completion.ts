import type { Snapshot } from '../core/build/snapshot.js';
import { knownNames } from '../core/compose/known-names.js';
import { findPrompt, type PromptCatalog } from './catalog.js';

/** What `completion/complete` answers: at most 100 values, and how many matched. */
export interface Completion {
  values: string[];
  total: number;
  hasMore: boolean;
}

/** The most values one completion answers (the MCP limit). */
export const MAX_COMPLETION_VALUES = 100;

/**
 * The values of a prompt argument that start with what was typed (case-insensitive):
 * the pack's teams for `team`, its fleet agents for `agent`, its roles for `role`, and an
 * input's values when it has a closed set (an enum's values, `true`/`false`). Anything
 * else, and a prompt or argument strata does not know, completes to nothing.
 *
 * @example
 * completeArgument(catalog, 'developer', 'team', 'pa'); // { values: ['payments', 'platform'], … }
 */
export function completeArgument(
  catalog: PromptCatalog,
  prompt: string,
  argument: string,
  typed: string,
  maxNameChars?: number,
): Completion {
  const entry = findPrompt(catalog, prompt, maxNameChars);
  const candidates = entry instanceof Error ? [] : argumentValues(catalog.snapshot, argument);
  const prefix = typed.toLowerCase();
  const matching = candidates.filter((v) => v.toLowerCase().startsWith(prefix));
  return {
    values: matching.slice(0, MAX_COMPLETION_VALUES),
    total: matching.length,
    hasMore: matching.length > MAX_COMPLETION_VALUES,
  };
}

// --- internal ---

function argumentValues(snapshot: Snapshot, argument: string): readonly string[] {
  const known = knownNames(snapshot);
  switch (argument) {
    case 'team':
      return known.teams;
    case 'agent':
      return snapshot.fleet.length > 0 ? snapshot.fleet.map((a) => a.id) : known.agents;
    case 'role':
      return known.roles;
  }
  const name = argument.startsWith('var.') ? argument.slice(4) : argument;
  const input = snapshot.manifest.inputs.find((i) => i.name === name);
  if (input?.type === 'enum') return input.values ?? [];
  if (input?.type === 'boolean') return ['true', 'false'];
  return [];
}
