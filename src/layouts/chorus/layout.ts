import type { Layout } from '../../core/layout.js';
import { PRESET, PRESET_PART } from './preset-text.js';

/**
 * CHORUS-style S + D: a persona per role from YAML role files, plus shared default
 * instructions. The layout detection falls back to: a pack holding top-level YAML files or
 * a defaults file stays this layout.
 */
export const chorus: Layout = {
  name: 'chorus',
  preset: PRESET,
  presetPart: PRESET_PART,
  fallbackFiles: ['*.yaml', '*.yml', 'defaults.md', 'defaults.txt'],
};
