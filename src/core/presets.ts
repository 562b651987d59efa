import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The built-in presets, shipped as YAML manifests in the package's `presets/` folder.

/** In detection order: a pack without a manifest is the first whose `detect:` holds, else chorus. */
export const PRESET_NAMES = ['roboco', 'crewai', 'agents-md', 'claude-agents', 'chorus'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

const cache = new Map<string, string>();

export function isPresetName(name: string): name is PresetName {
  return (PRESET_NAMES as readonly string[]).includes(name);
}

/** The manifest text of a built-in preset, or undefined for an unknown name. */
export function presetText(name: string): string | undefined {
  if (!isPresetName(name)) return undefined;
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(join(presetsDir(), `${name}.yaml`), 'utf8');
    cache.set(name, text);
  }
  return text;
}

// --- internal ---

let dir: string | undefined;

function presetsDir(): string {
  if (dir) return dir;
  let here = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(here, 'presets');
    if (existsSync(join(candidate, 'roboco.yaml'))) {
      dir = candidate;
      return dir;
    }
    here = dirname(here);
  }
  throw new Error('strata: the presets/ folder is missing from the package');
}
