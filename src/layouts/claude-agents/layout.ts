import type { Layout } from '../../core/layout.js';
import { plugins } from './plugins.js';
import { PRESET } from './preset-text.js';

/** Claude Code subagents: one Markdown file an agent, named by its frontmatter. */
export const claudeAgents: Layout = { name: 'claude-agents', preset: PRESET, discovery: { plugins } };
