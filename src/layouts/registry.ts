import { detectPreset as detectWith } from '../core/build/detect.js';
import { type Layouts, layoutSet } from '../core/layout.js';
import { agentsMd } from './agents-md/layout.js';
import { chorus } from './chorus/layout.js';
import { claudeAgents } from './claude-agents/layout.js';
import { crewai } from './crewai/layout.js';
import { roboco } from './roboco/layout.js';

// The built-in layouts, in detection order: a pack without a manifest is the first whose
// preset's `detect:` holds, else the last (chorus). A new layout is a folder beside these
// (its preset.yaml, its layout.ts, a README) and one line here.

/** Every built-in layout, as the core takes them. */
export const LAYOUTS: Layouts = layoutSet([roboco, crewai, agentsMd, claudeAgents, chorus]);

/** The built-in presets' names, in detection order. */
export const PRESET_NAMES: readonly string[] = LAYOUTS.names;

/**
 * Which built-in preset a pack without a manifest is, from its paths (and, with `probe`,
 * the keys its files carry): the first whose `detect:` holds, else chorus.
 */
export function detectPreset(
  paths: readonly string[],
  probe?: (path: string) => ReadonlySet<string>[],
): string {
  return detectWith(LAYOUTS, paths, probe);
}

/** Whether `name` is a built-in preset. */
export function isPresetName(name: string): boolean {
  return LAYOUTS.get(name) !== undefined;
}
