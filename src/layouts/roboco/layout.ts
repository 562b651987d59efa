import type { Layout } from '../../core/layout.js';
import { PRESET } from './preset-text.js';

/** RoboCo-style doctrine layers: ordered Markdown layers joined by `---` separators. */
export const roboco: Layout = { name: 'roboco', preset: PRESET };
