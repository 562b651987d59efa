import type { Snapshot } from '../../core/build/snapshot.js';
import type { ComposeOutcome } from '../../core/compose/compose.js';
import { composeMember, type Member } from '../../core/compose/members.js';
import { missingInputName } from '../../core/pack/inputs.js';
import type { Manifest } from '../../core/pack/manifest.js';

/** A member composed for validation, with stand-ins for the request inputs nobody gave. */
export interface StandInCompose {
  outcome: ComposeOutcome;
  /** The inputs it was composed with: the given ones, then the stand-ins. */
  vars?: Readonly<Record<string, string>>;
  /** Names of the inputs that stood in (the ones a compose of this member needs), sorted. */
  standIns: string[];
}

/**
 * Composes a member with the given inputs; while the compose fails for want of inputs
 * (MISSING_INPUT), composes it again with a stand-in value for each missing one, so
 * validation reaches every layer and record without the run's values. A stand-in is the
 * placeholder itself for a string (`{topic}`), `false`, an enum's first value, or the
 * integer nearest 0 in range. Any other failure is the outcome's.
 */
export function composeWithStandIns(
  snapshot: Snapshot,
  member: Member,
  given: Readonly<Record<string, string>> | undefined,
): StandInCompose {
  let vars = given;
  const standIns: string[] = [];
  for (;;) {
    const outcome = composeMember(snapshot, member, undefined, vars);
    const missing = outcome.ok
      ? []
      : outcome.diagnostics
          .map(missingInputName)
          .filter((name): name is string => name !== undefined && vars?.[name] === undefined);
    if (missing.length === 0) {
      const out: StandInCompose = { outcome, standIns: standIns.sort() };
      if (vars !== undefined) out.vars = vars;
      return out;
    }
    const next: Record<string, string> = { ...vars };
    for (const name of missing) {
      if (next[name] !== undefined) continue;
      next[name] = standInValue(snapshot.manifest, name);
      standIns.push(name);
    }
    vars = next;
  }
}

// --- internal ---

function standInValue(manifest: Manifest, name: string): string {
  const def = manifest.inputs.find((i) => i.name === name) ?? manifest.openInputs;
  switch (def?.type) {
    case 'boolean':
      return 'false';
    case 'enum':
      return def.values?.[0] ?? '';
    case 'integer': {
      let n = 0;
      if (def.min !== undefined && n < def.min) n = def.min;
      if (def.max !== undefined && n > def.max) n = def.max;
      return String(n);
    }
    default:
      return manifest.inputSyntax === '{name}' ? `{${name}}` : `{{${name}}}`;
  }
}
