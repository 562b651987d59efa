import type { Layout } from '../../core/layout.js';
import { pluginPaths } from './plugin-paths.js';
import { plugins } from './plugins.js';
import { PRESET, PRESET_PART } from './preset-text.js';

/**
 * Claude Code subagents: one Markdown file an agent, named by its frontmatter; plugins'
 * agents found as Claude Code finds them (`plugins`), with their `${CLAUDE_PLUGIN_ROOT}`
 * and `${CLAUDE_PLUGIN_DATA}` given by request inputs (`pluginPaths`).
 */
export const claudeAgents: Layout = {
  name: 'claude-agents',
  preset: PRESET,
  presetPart: PRESET_PART,
  discovery: { plugins },
  substitutions: pluginPaths,
};
