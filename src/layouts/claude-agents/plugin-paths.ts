import type { Substitution, SubstitutionRule } from '../../core/layout.js';
import { isObject } from '../../core/text/yaml.js';
import { marketEntriesOfPlugins, marketPlugins } from './market-plugins.js';

// Claude Code replaces `${CLAUDE_PLUGIN_ROOT}` in a plugin agent's body with the folder the
// plugin is installed in, and `${CLAUDE_PLUGIN_DATA}` with the folder it keeps its data in
// (both under the user's ~/.claude, known only where it runs). In the body of an agent of
// a plugin (a folder holding `.claude-plugin/plugin.json`, or one a marketplace.json lists
// as a local plugin), strata replaces them with the
// request inputs `plugin_root` and `plugin_data`; a compose of such an agent without the
// value fails, naming the input to give. An agent outside plugins keeps them as written,
// as Claude Code does.
//
// Then, in the body of an agent of a plugin whose manifest declares options (`userConfig`),
// Claude Code replaces `${user_config.KEY}` for each option KEY declared there: an option
// marked `sensitive` with the text `[sensitive option 'KEY' not available in skill
// content]` (a secret never reaches the model), another with the value the user saved for
// it, the text as written when none is saved. strata writes the first as Claude Code does;
// the user's saved value it cannot know, and keeps the text as written, said
// (PLACEHOLDER_KEPT). A key no option declares stays as written, as in Claude Code.

/** The substitution rule of Claude Code plugins. */
export const pluginPaths: SubstitutionRule = {
  forPaths(paths, textOf) {
    const roots: Array<{ root: string; subs: readonly Substitution[] }> = [];
    const add = (folder: string, manifest: unknown) =>
      roots.push({ root: folder === '' ? '' : `${folder}/`, subs: [...PLUGIN, ...userConfig(manifest)] });
    const market = marketEntriesOfPlugins(paths, textOf);
    for (const path of paths) {
      if (path !== PLUGIN_JSON && !path.endsWith(`/${PLUGIN_JSON}`)) continue;
      const folder = path === PLUGIN_JSON ? '' : path.slice(0, -PLUGIN_JSON.length - 1);
      // Its plugin.json's options; without any there, its marketplace entry's.
      const own = pluginManifest(textOf(path));
      add(folder, own?.userConfig !== undefined ? own : market.get(folder));
    }
    for (const [folder, entry] of marketPlugins(paths, textOf)) add(folder, entry);
    if (roots.length === 0) return () => NONE;
    // The innermost plugin folder holding the path: a plugin's own options.
    roots.sort((a, b) => b.root.length - a.root.length);
    return (path) => roots.find(({ root }) => path.startsWith(root))?.subs ?? NONE;
  },
};

// --- internal ---

const PLUGIN_JSON = '.claude-plugin/plugin.json';

const NONE: readonly never[] = [];

// The texts Claude Code replaces, written as it writes them (no template strings here).
const PLUGIN: readonly Substitution[] = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's own placeholder text
  { text: '${CLAUDE_PLUGIN_ROOT}', input: 'plugin_root', means: 'the folder the plugin is installed in' },
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's own placeholder text
  { text: '${CLAUDE_PLUGIN_DATA}', input: 'plugin_data', means: 'the folder the plugin keeps its data in' },
];

/** A plugin.json's parsed object; undefined when it does not parse or is no object. */
function pluginManifest(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The `${user_config.KEY}` substitutions of a plugin manifest's declared options. */
function userConfig(manifest: unknown): Substitution[] {
  const options = isObject(manifest) ? manifest.userConfig : undefined;
  if (!isObject(options)) return [];
  const out: Substitution[] = [];
  for (const [key, option] of Object.entries(options)) {
    // Claude Code's placeholder is `${user_config.` and any text up to the next `}`.
    if (key === '' || key.includes('}')) continue;
    const text = `\${user_config.${key}}`;
    if (isObject(option) && option.sensitive === true)
      out.push({ text, replacement: `[sensitive option '${key}' not available in skill content]` });
    else
      out.push({
        text,
        kept: `the value the user saved for the plugin's option ${key} (the text as written when none is saved)`,
      });
  }
  return out;
}
