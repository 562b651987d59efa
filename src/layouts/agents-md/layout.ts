import type { Layout } from '../../core/layout.js';
import { PRESET, PRESET_PART } from './preset-text.js';

/**
 * Nested AGENTS.md files, from the project root down to the working directory. A project
 * whose AGENTS.md files are all in sub-folders (`svc/AGENTS.md`, `svc/api/AGENTS.md`) is
 * this layout too, when no other layout's own files are there (`detectAlso`).
 */
export const agentsMd: Layout = {
  name: 'agents-md',
  preset: PRESET,
  presetPart: PRESET_PART,
  detectAlso: ['**/AGENTS.md', '**/AGENTS.override.md'],
};
