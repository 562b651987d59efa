import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { claudeAgent } from '../../test/layouts/reference/claude-code.js';
import { codexProjectDocs } from '../../test/layouts/reference/codex.js';

/**
 * Composes every agent of real repositories with strata and with a reference composer
 * written from each system's own source, and counts the byte-identical ones.
 *
 *   STRATA=/path/to/strata tsx bench/real-layouts/measure.ts CORPUS
 *
 * STRATA is the strata tree whose library is measured (a checkout of the commit before a
 * change, or after it); CORPUS holds the repositories as files (docs/BENCHMARKS.md says how
 * they were brought). The references: crewai_reference.py (PyYAML, CrewAI's
 * interpolate_only and role_playing slice); claudeReference below (Claude Code's plugin
 * agent loader: its frontmatter pattern, the `yaml` package with its quoted-values retry,
 * `String(name)` or the file's name, the body trimmed, ${CLAUDE_PLUGIN_ROOT} and
 * ${CLAUDE_PLUGIN_DATA} replaced); codexReference below (codex-rs project_doc.rs: from the
 * folder holding `.git` down to the working directory, AGENTS.override.md else AGENTS.md,
 * each read to the 32 KiB budget left, decoded lossily, kept when not blank, joined by a
 * blank line).
 */

const HERE = dirname(new URL(import.meta.url).pathname);
const strata = process.env.STRATA ?? process.cwd();
const corpus = process.argv[2] ?? '/tmp/real';
const { loadPack } = await import(join(strata, 'src/source/load.ts'));
const { tryCompose } = await import(join(strata, 'src/core/compose/compose.ts'));

type Row = { name: string; same: number; total: number; differ: string[] };
const rows: Row[] = [];

rows.push(await crewai('crewAI-examples, every agents.yaml of its history', join(corpus, 'crewai-history')));
rows.push(await crewai('crewAI-examples, its newest commit', join(corpus, 'crewai-examples')));
rows.push(await claude('awesome-claude-code-subagents', join(corpus, 'voltagent')));
rows.push(await claude('wshobson/agents', join(corpus, 'wshobson')));
rows.push(await codex('Orbit-CLI (nested AGENTS.md)', join(corpus, 'orbit')));

for (const r of rows) {
  console.log(`${r.name}: ${r.same} of ${r.total} byte-identical`);
  for (const d of r.differ.slice(0, 12)) console.log(`  differs: ${d}`);
}

// --- internal ---

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, keep, out);
    else if (keep(path)) out.push(path);
  }
  return out;
}

async function crewai(name: string, root: string): Promise<Row> {
  const files = walk(root, (p) => /\/config\/agents\.ya?ml$/.test(p));
  const script = join(HERE, '../../test/layouts/reference/crewai_reference.py');
  const ref = JSON.parse(execFileSync('python3', [script, ...files], { maxBuffer: 1 << 28 }).toString());
  const row: Row = { name, same: 0, total: 0, differ: [] };
  for (const file of files) {
    const agents = ref[file] as Record<string, { prompt: string; inputs: Record<string, string> }>;
    if ('__error__' in agents) continue;
    const { snapshot } = await loadPack(dirname(dirname(file)), { env: {} });
    for (const [id, { prompt, inputs }] of Object.entries(agents)) {
      row.total++;
      const out = snapshot && tryCompose(snapshot, { role: id, vars: inputs });
      if (out?.ok && out.result.text === prompt) row.same++;
      else row.differ.push(`${relative(root, file)} ${id}`);
    }
  }
  return row;
}

async function claude(name: string, root: string): Promise<Row> {
  const row: Row = { name, same: 0, total: 0, differ: [] };
  const { snapshot } = await loadPack(root, { env: {}, preset: 'claude-agents' });
  for (const manifest of walk(root, (p) => p.endsWith('/.claude-plugin/plugin.json'))) {
    const plugin = dirname(dirname(manifest));
    const json = JSON.parse(readFileSync(manifest, 'utf8'));
    const agents = new Set<string>();
    if (existsSync(join(plugin, 'agents')))
      for (const f of walk(join(plugin, 'agents'), (p) => p.endsWith('.md'))) agents.add(f);
    for (const entry of [json.agents ?? []].flat()) {
      const path = join(plugin, entry);
      if (existsSync(path) && statSync(path).isFile()) agents.add(path);
      else if (existsSync(path)) for (const f of walk(path, (p) => p.endsWith('.md'))) agents.add(f);
    }
    const vars = {
      plugin_root: `/plugins/${basename(plugin)}`,
      plugin_data: `/plugin-data/${basename(plugin)}`,
    };
    for (const file of [...agents].sort()) {
      const ref = claudeAgent(readFileSync(file, 'utf8'), basename(file), {
        root: vars.plugin_root,
        data: vars.plugin_data,
      });
      row.total++;
      const out = snapshot && tryCompose(snapshot, { role: ref.name, vars });
      // A main without plugin inputs takes none: compose it without them.
      const plain = out && !out.ok && snapshot ? tryCompose(snapshot, { role: ref.name }) : out;
      const got = out?.ok ? out : plain;
      if (got?.ok && got.result.text === ref.prompt) row.same++;
      else row.differ.push(`${relative(root, file)} (${ref.name})`);
    }
  }
  return row;
}

async function codex(name: string, root: string): Promise<Row> {
  const row: Row = { name, same: 0, total: 0, differ: [] };
  const { snapshot } = await loadPack(root, { env: {} });
  const folders = walk(root, (p) => /\/AGENTS(\.override)?\.md$/.test(p)).map(
    (p) => relative(root, dirname(p)) || '.',
  );
  for (const cwd of [...new Set(folders)]) {
    row.total++;
    const prompt = codexProjectDocs(root, cwd);
    const out = snapshot && tryCompose(snapshot, { vars: { cwd } });
    if (out?.ok && out.result.text === prompt) row.same++;
    else row.differ.push(cwd);
  }
  return row;
}
