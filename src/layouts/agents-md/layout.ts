import type { Layout } from '../../core/layout.js';
import { PRESET } from './preset-text.js';

/** Nested AGENTS.md files, from the project root down to the working directory. */
export const agentsMd: Layout = { name: 'agents-md', preset: PRESET };
