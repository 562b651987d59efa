import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { claudeAgent } from '../../test/layouts/reference/claude-code.js';
import { codexProjectDocs } from '../../test/layouts/reference/codex.js';

/**
 * Composes every agent of real repositories with strata and with a reference composer
 * written from each system's own source, and counts the byte-identical ones, those
 * refused with an error, and those composed with other bytes.
 *
 *   STRATA=/path/to/strata tsx bench/real-layouts/measure.ts CORPUS
 *   BELOW=all STRATA=… tsx bench/real-layouts/measure.ts CORPUS   # every folder of an AGENTS.md tree as cwd
 *
 * STRATA is the strata tree whose library is measured (a checkout before a change, or
 * after it); CORPUS holds the repositories as files (docs/BENCHMARKS.md says how they were
 * brought), each in its folder (`crewai-examples`, `orbit`, …; a row whose folder is not
 * there is left out), and any number of AGENTS.md repositories in `agents-md/`, a row each. The references live beside the layouts' tests: crewai_reference.py (PyYAML,
 * CrewAI's interpolate_only and role_playing slice), claude-code.ts (Claude Code's plugin
 * agent loader, and its loader of a project's `.claude/agents` and a user's
 * `~/.claude/agents`), codex.ts (Codex's project docs). A row whose repository CORPUS does
 * not hold is said and passed over.
 */

const HERE = dirname(new URL(import.meta.url).pathname);
const strata = process.env.STRATA ?? process.cwd();
const corpus = process.argv[2] ?? '/tmp/real';
const { loadPack } = await import(join(strata, 'src/source/load.ts'));
const { tryCompose } = await import(join(strata, 'src/core/compose/compose.ts'));
// Whether this tree's CLI opens a folder as the layout that has the role asked for (what
// `strata compose --role` does, emulated below with the library).
const forRole = readFileSync(join(strata, 'src/cli/pack-options.ts'), 'utf8').includes('openPackForRole');

type Snapshot = {
  roles: Map<string, unknown>;
  alsoLayout?: string;
  alsoLayouts?: readonly string[];
  preset?: string;
};
type Row = { name: string; same: number; said: number; total: number; differ: string[]; note?: string };
type Outcome = { ok: true; result: { text: string } } | { ok: false; diagnostics: Array<{ code: string }> };

// A row whose repository is not in CORPUS is left out.
const rows: Row[] = [];
const add = async (root: string, measure: () => Promise<Row>) => {
  if (existsSync(root)) rows.push(await measure());
};
await add(join(corpus, 'crewai-history'), () =>
  crewai(
    'crewAI-examples, every agents.yaml of its history (--dir the crew)',
    join(corpus, 'crewai-history'),
  ),
);
await add(join(corpus, 'crewai-examples'), () =>
  crewai('crewAI-examples, newest commit (--dir the crew)', join(corpus, 'crewai-examples')),
);
await add(join(corpus, 'crewai-examples'), () =>
  crewai('crewAI-examples, newest commit (--dir the repository)', join(corpus, 'crewai-examples'), true),
);
await add(join(corpus, 'crewai-more'), () =>
  crewaiEach('other CrewAI repositories, newest commit (--dir the crew)', join(corpus, 'crewai-more')),
);
await add(join(corpus, 'crewai-more'), () =>
  crewaiEach(
    'other CrewAI repositories, newest commit (--dir the repository)',
    join(corpus, 'crewai-more'),
    true,
  ),
);
await add(join(corpus, 'crewai-more-history'), () =>
  crewaiEach(
    'other CrewAI repositories, every agents.yaml of their history (--dir the crew)',
    join(corpus, 'crewai-more-history'),
  ),
);
await add(join(corpus, 'voltagent'), () =>
  claude('awesome-claude-code-subagents (--dir the repository)', join(corpus, 'voltagent')),
);
await add(join(corpus, 'wshobson'), () =>
  claude('wshobson/agents (--dir the repository)', join(corpus, 'wshobson')),
);
await add(join(corpus, 'wshobson'), () =>
  claude('wshobson/agents (--preset claude-agents)', join(corpus, 'wshobson'), 'claude-agents'),
);
await add(join(corpus, 'orbit'), () =>
  codex('Orbit-CLI, every folder with an AGENTS.md as cwd', join(corpus, 'orbit')),
);
// Each repository in CORPUS/agents-md: read as an agents-md pack, every folder holding an
// AGENTS.md (hidden ones and node_modules aside, which the preset does not read) as cwd,
// and up to three folders below each that hold none (BELOW=n: n; BELOW=all: every folder).
const many = join(corpus, 'agents-md');
const below = process.env.BELOW === 'all' ? Number.POSITIVE_INFINITY : Number(process.env.BELOW ?? 3);
for (const name of existsSync(many) ? readdirSync(many).sort() : [])
  rows.push(
    await codex(
      `${name} (--preset agents-md; and ${below === Number.POSITIVE_INFINITY ? 'every folder' : `${below} folders below each`})`,
      join(many, name),
      'agents-md',
      below,
    ),
  );
await add(join(corpus, 'claude-code-plugins'), () =>
  claude('melodic-software/claude-code-plugins (--dir the repository)', join(corpus, 'claude-code-plugins')),
);
for (const [repo, folder, agents] of [
  ['0xfurai/claude-code-subagents', 'claude-code-subagents', 'agents'],
  ['lst97/claude-code-sub-agents', 'claude-code-sub-agents', 'agents'],
  ['vijaythecoder/awesome-claude-agents', 'awesome-claude-agents', 'agents'],
  ['davepoon/claude-code-subagents-collection', 'claude-code-subagents-collection', 'subagents'],
  ['olliecrow/claude_code', 'claude_code', 'agents'],
  ['thkt/dotclaude (a ~/.claude)', 'dotclaude', 'agents'],
  ['1215-Labs/claude-code-templates', 'claude-code-templates', '.claude/agents'],
  ['0motionguy/gICM', 'gICM', '.claude/agents'],
  ['707/workflows', 'workflows', '.claude/agents'],
  ['AOSSIE-Org/PictoPy', 'PictoPy', '.claude/agents'],
  ['0xLian117/ML_PhD_research_workflow', 'ML_PhD_research_workflow', '.claude/agents'],
  ['0r0loo/my-claude-code-toolkit', 'my-claude-code-toolkit', '.claude/agents'],
  ['0FL01/Autism-Driven-Development', 'Autism-Driven-Development', '.claude/agents'],
  ['07130918/claude-code-training', 'claude-code-training', '.claude/agents'],
] as const)
  await add(join(corpus, folder), () =>
    claudeFolder(`${repo}, ${agents}/ (--dir the repository)`, join(corpus, folder), agents),
  );
// Each repository in CORPUS/claude-more: its plugins (a plugin.json, or a local plugin of
// its marketplace.json) as `claude` reads them, and its `.claude/agents` (else its
// `agents/`, else its Markdown files, a collection copied into `~/.claude/agents`) as
// `claudeFolder` does, when it holds no plugin.
const more = join(corpus, 'claude-more');
for (const repo of existsSync(more) ? readdirSync(more).sort() : []) {
  const root = join(more, repo);
  if (!statSync(root).isDirectory()) continue;
  if (pluginRoots(root).length > 0) rows.push(await claude(`${repo}, plugins (--dir the repository)`, root));
  else {
    const agents = ['.claude/agents', 'agents'].find((f) => existsSync(join(root, f))) ?? '';
    rows.push(await claudeFolder(`${repo}, ${agents || '.'}/ (--dir the repository)`, root, agents));
  }
}
for (const r of rows) {
  if (r.note !== undefined && r.total === 0) {
    console.log(`${r.name}: ${r.note}`);
    continue;
  }
  console.log(
    `${r.name}: ${r.same} of ${r.total} byte-identical, ${r.said} refused with an error, ${r.total - r.same - r.said} other bytes${r.note ? ` (${r.note})` : ''}`,
  );
  for (const d of r.differ.slice(0, 6)) console.log(`  ${d}`);
}

// --- internal ---

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    // A link that leads nowhere, or back up its own path, is passed over.
    if (!existsSync(path) || (lstatSync(path).isSymbolicLink() && lstatSync(dir).isSymbolicLink())) continue;
    if (statSync(path).isDirectory()) walk(path, keep, out);
    else if (keep(path)) out.push(path);
  }
  return out;
}

/** Counts an outcome: the reference's bytes, an error (said), or other bytes. */
function count(row: Row, out: Outcome | undefined, want: string | undefined, what: string): void {
  row.total++;
  if (out?.ok && out.result.text === want) row.same++;
  else if (out && !out.ok) {
    row.said++;
    row.differ.push(`refused (${out.diagnostics[0]?.code}): ${what}`);
  } else row.differ.push(`other bytes: ${what}`);
}

/** {@link crewai} over every folder of `parent`, each a repository (or a crew of a history), in one row. */
async function crewaiEach(name: string, parent: string, whole = false): Promise<Row> {
  const row: Row = { name, same: 0, said: 0, total: 0, differ: [] };
  if (!existsSync(parent)) return row;
  for (const repo of readdirSync(parent).sort())
    await crewai(name, join(parent, repo), whole, row, `${repo}/`);
  return row;
}

async function crewai(
  name: string,
  root: string,
  whole = false,
  row: Row = { name, same: 0, said: 0, total: 0, differ: [] },
  prefix = '',
): Promise<Row> {
  const files = walk(root, (p) => /\/config\/agents\.ya?ml$/.test(p));
  const script = join(HERE, '../../test/layouts/reference/crewai_reference.py');
  const ref = JSON.parse(execFileSync('python3', [script, ...files], { maxBuffer: 1 << 28 }).toString());
  // The whole repository as one pack: a load that fails refuses every agent.
  const all = whole ? await loadPack(root, { env: {} }) : undefined;
  const failed: Outcome = { ok: false, diagnostics: all?.diagnostics ?? [] };
  for (const file of files) {
    const agents = ref[file] as Record<string, { prompt: string; inputs: Record<string, string> }>;
    if ('__error__' in agents) continue;
    const snapshot = (all ?? (await loadPack(dirname(dirname(file)), { env: {} }))).snapshot;
    for (const [id, { prompt, inputs }] of Object.entries(agents))
      count(
        row,
        snapshot ? tryCompose(snapshot, { role: id, vars: inputs }) : failed,
        prompt,
        `${prefix}${relative(root, file)} ${id}`,
      );
  }
  return row;
}

async function claude(name: string, root: string, preset?: string): Promise<Row> {
  const row: Row = { name, same: 0, said: 0, total: 0, differ: [] };
  if (!existsSync(root)) return { ...row, note: 'not in the corpus' };
  const detected = (await loadPack(root, { env: {}, preset })).snapshot;
  const forRoleOf = await otherLayouts(root, detected);
  for (const plugin of pluginRoots(root)) {
    const manifest = join(plugin, '.claude-plugin/plugin.json');
    const json = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')) : {};
    const agents = new Set<string>();
    // A plugin.json's "agents" replaces the plugin's agents/ folder (cli.js 2.1.100).
    if (!json.agents && existsSync(join(plugin, 'agents')))
      for (const f of walk(join(plugin, 'agents'), (p) => p.endsWith('.md'))) agents.add(f);
    for (const entry of [json.agents ?? []].flat()) {
      const path = join(plugin, entry);
      if (existsSync(path) && statSync(path).isFile()) agents.add(path);
      else if (existsSync(path)) for (const f of walk(path, (p) => p.endsWith('.md'))) agents.add(f);
    }
    const place = { root: `/plugins/${basename(plugin)}`, data: `/plugin-data/${basename(plugin)}` };
    const vars = { plugin_root: place.root, plugin_data: place.data };
    for (const file of [...agents].sort()) {
      const ref = claudeAgent(readFileSync(file, 'utf8'), basename(file), place);
      const bare = ref.name ?? '';
      // Claude Code calls a plugin's agent `<plugin>:<name>`; strata keeps agents two
      // plugins name alike apart as `<plugin>.<name>` (a tree before that, by the name).
      const qualified = `${typeof json.name === 'string' && json.name ? json.name : basename(plugin)}.${bare}`;
      const role = forRoleOf(qualified)?.roles.has(qualified) ? qualified : bare;
      const snapshot = forRoleOf(role);
      let out: Outcome | undefined = snapshot && tryCompose(snapshot, { role, vars });
      // A tree whose layout takes no plugin inputs: the request without them.
      if (out && !out.ok && out.diagnostics.some((d) => d.code === 'UNKNOWN_INPUT'))
        out = tryCompose(snapshot, { role });
      count(row, out, ref.prompt, `${relative(root, file)} (${role})`);
    }
  }
  return row;
}

/**
 * The snapshot `strata compose --role` composes a role from: the detected layout's, else
 * the first other layout the folder also is that has the role (`alsoLayouts`, or the one
 * `alsoLayout` of an older tree), as the CLI opens it.
 */
async function otherLayouts(root: string, detected: Snapshot | undefined) {
  const names: readonly string[] = !forRole
    ? []
    : (detected?.alsoLayouts ?? (detected?.alsoLayout ? [detected.alsoLayout] : []));
  const others: Snapshot[] = [];
  for (const preset of names) {
    const { snapshot } = await loadPack(root, { env: {}, preset });
    if (snapshot) others.push(snapshot);
  }
  return (role: string): Snapshot | undefined =>
    detected?.roles.has(role) ? detected : (others.find((o) => o.roles.has(role)) ?? detected);
}

/**
 * The plugins below `root`: every folder holding `.claude-plugin/plugin.json`, and every
 * local plugin (a `source` that is a path) of a `.claude-plugin/marketplace.json` there,
 * which Claude Code loads from its default folders when it has no plugin.json.
 */
function pluginRoots(root: string): string[] {
  const out = new Set(
    walk(root, (p) => p.endsWith('/.claude-plugin/plugin.json')).map((m) => dirname(dirname(m))),
  );
  for (const market of walk(root, (p) => p.endsWith('/.claude-plugin/marketplace.json'))) {
    let json: { plugins?: Array<{ source?: unknown }> };
    try {
      json = JSON.parse(readFileSync(market, 'utf8'));
    } catch {
      continue;
    }
    for (const entry of json.plugins ?? []) {
      if (typeof entry.source !== 'string') continue;
      const folder = join(dirname(dirname(market)), entry.source);
      if (existsSync(folder) && statSync(folder).isDirectory()) out.add(folder.replace(/\/$/, ''));
    }
  }
  return [...out].sort();
}

/**
 * The agents of a project's `.claude/agents` folder, or of a folder a collection has its
 * users copy into `~/.claude/agents` (`agents`, below `root`), as Claude Code loads them
 * (every `*.md` below, hidden ones too; an agent only with a string `name` and
 * `description`), composed from `root` as `strata compose --dir root --role <name>` does.
 * A name two files give is one agent, which Claude Code takes from the file its listing
 * gives last (ripgrep's order, which nothing fixes): strata's text is counted identical
 * when it is either file's.
 */
async function claudeFolder(name: string, root: string, agents: string): Promise<Row> {
  const row: Row = { name, same: 0, said: 0, total: 0, differ: [] };
  if (!existsSync(root)) return { ...row, note: 'not in the corpus' };
  const detected = (await loadPack(root, { env: {} })).snapshot;
  const forRoleOf = await otherLayouts(root, detected);
  const byName = new Map<string, { prompts: string[]; files: string[] }>();
  let none = 0;
  let memory = 0;
  for (const file of walk(join(root, agents), (p) => p.endsWith('.md'))) {
    const text = readFileSync(file, 'utf8');
    const ref = claudeAgent(text, basename(file));
    if (ref.name === undefined) {
      none++;
      continue;
    }
    // Claude Code's own memory text follows such an agent's body where auto memory is on.
    if (/^memory:[ \t]*(user|project|local)[ \t]*$/m.test(text.split(/^---\s*$/m)[1] ?? '')) memory++;
    const seen = byName.get(ref.name) ?? { prompts: [], files: [] };
    seen.prompts.push(ref.prompt);
    seen.files.push(relative(root, file));
    byName.set(ref.name, seen);
  }
  let twice = 0;
  for (const [role, { prompts, files }] of byName) {
    if (files.length > 1) twice++;
    const snapshot = forRoleOf(role);
    const out: Outcome | undefined = snapshot && tryCompose(snapshot, { role });
    const want = out?.ok && prompts.includes(out.result.text) ? out.result.text : prompts[0];
    count(row, out, want, `${files.join(' and ')} (${role})`);
  }
  const notes = [
    none > 0 ? `${none} files that Claude Code registers no agent for` : '',
    twice > 0 ? `${twice} names that more than one file gives` : '',
    memory > 0 ? `${memory} with memory:` : '',
  ].filter(Boolean);
  return notes.length > 0 ? { ...row, note: notes.join('; ') } : row;
}

async function codex(name: string, root: string, preset?: string, below = 0): Promise<Row> {
  const row: Row = { name, same: 0, said: 0, total: 0, differ: [] };
  const { snapshot } = await loadPack(root, { env: {}, preset });
  const cwds = below === 0 ? docFolders(root) : [];
  if (below > 0) {
    const folders = projectFolders(root);
    const holding = folders.filter(hasDoc);
    cwds.push(...holding);
    if (below === Number.POSITIVE_INFINITY) cwds.push(...folders);
    else
      for (const f of holding)
        cwds.push(...folders.filter((d) => d.startsWith(`${f}/`) && !hasDoc(d)).slice(0, below));
  }
  for (const cwd of new Set(cwds.map((f) => relative(root, f) || '.')))
    count(row, snapshot && tryCompose(snapshot, { vars: { cwd } }), codexProjectDocs(root, cwd), cwd);
  return row;
}

/** Every folder holding an AGENTS.md or AGENTS.override.md, at any depth. */
function docFolders(root: string): string[] {
  return [...new Set(walk(root, (p) => /\/AGENTS(\.override)?\.md$/.test(p)).map((p) => dirname(p)))];
}

/** The root and every folder below it, in path order: links, hidden folders and node_modules not followed. */
function projectFolders(dir: string, out: string[] = [dir]): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const path = join(dir, name);
    if (lstatSync(path).isDirectory()) {
      out.push(path);
      projectFolders(path, out);
    }
  }
  return out;
}

function hasDoc(dir: string): boolean {
  return existsSync(join(dir, 'AGENTS.md')) || existsSync(join(dir, 'AGENTS.override.md'));
}
