import type { Layout } from '../../core/layout.js';
import { PRESET, PRESET_PART } from './preset-text.js';

/** RoboCo-style doctrine layers: ordered Markdown layers joined by `---` separators. */
export const roboco: Layout = { name: 'roboco', preset: PRESET, presetPart: PRESET_PART };
