import type { SubstitutionRule } from '../../core/layout.js';
import { marketPlugins } from './market-plugins.js';

// Claude Code replaces `${CLAUDE_PLUGIN_ROOT}` in a plugin agent's body with the folder the
// plugin is installed in, and `${CLAUDE_PLUGIN_DATA}` with the folder it keeps its data in
// (both under the user's ~/.claude, known only where it runs). In the body of an agent of
// a plugin (a folder holding `.claude-plugin/plugin.json`, or one a marketplace.json lists
// as a local plugin), strata replaces them with the
// request inputs `plugin_root` and `plugin_data`; a compose of such an agent without the
// value fails, naming the input to give. An agent outside plugins keeps them as written,
// as Claude Code does.

/** The substitution rule of Claude Code plugins. */
export const pluginPaths: SubstitutionRule = {
  forPaths(paths, textOf) {
    const roots = paths
      .filter((p) => p === PLUGIN_JSON || p.endsWith(`/${PLUGIN_JSON}`))
      .map((p) => p.slice(0, -PLUGIN_JSON.length));
    for (const folder of marketPlugins(paths, textOf).keys()) roots.push(folder === '' ? '' : `${folder}/`);
    if (roots.length === 0) return () => NONE;
    return (path) => (roots.some((root) => path.startsWith(root)) ? PLUGIN : NONE);
  },
};

// --- internal ---

const PLUGIN_JSON = '.claude-plugin/plugin.json';

const NONE: readonly never[] = [];

// The texts Claude Code replaces, written as it writes them (no template strings here).
const PLUGIN = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's own placeholder text
  { text: '${CLAUDE_PLUGIN_ROOT}', input: 'plugin_root', means: 'the folder the plugin is installed in' },
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's own placeholder text
  { text: '${CLAUDE_PLUGIN_DATA}', input: 'plugin_data', means: 'the folder the plugin keeps its data in' },
] as const;
