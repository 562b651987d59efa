import { PRESET_TEXTS } from './preset-texts.js';

// The built-in presets: YAML manifests shipped as each layout's `preset.yaml` and handed to the core as
// data (src/layouts/preset-texts.ts, generated from those files), so loading one reads no file.

/** In detection order: a pack without a manifest is the first whose `detect:` holds, else chorus. */
export const PRESET_NAMES = ['roboco', 'crewai', 'agents-md', 'claude-agents', 'chorus'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

export function isPresetName(name: string): name is PresetName {
  return (PRESET_NAMES as readonly string[]).includes(name);
}

/** The manifest text of a built-in preset, or undefined for an unknown name. */
export function presetText(name: string): string | undefined {
  return isPresetName(name) && Object.hasOwn(PRESET_TEXTS, name) ? PRESET_TEXTS[name] : undefined;
}
