/**
 * Checks the import graph of src/ (static, type-only and dynamic imports): no cycle
 * between files, and no import that points up the layer order. Each folder's README.md
 * says what the folder may import, in one machine-readable line:
 *
 *     May import: core, source
 *     Packages: yaml
 *
 * `May import` names the folders of src/ its files may import (`none` for none; files at
 * the top of src/ are entries and may import any folder). `Packages`, when present,
 * names the only packages its files may import (`node:*` for Node's built-ins, `none`
 * for none). A folder without a README.md, or without the line, is an error.
 *
 * Usage: `tsx scripts/check-imports.ts [src-dir]`; exit 0 clean, 1 with one line a finding.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every finding of the two rules for the src folder `src`, one line each, sorted. */
export function checkImports(src: string): string[] {
  const files = listSources(src);
  const rules = readRules(src, files);
  const findings: string[] = [...rules.problems];
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const from = folderOf(src, file);
    const rule = rules.byFolder.get(from);
    const edges: string[] = [];
    for (const spec of importsOf(file)) {
      const where = `${rel(src, file)}`;
      if (spec.startsWith('.')) {
        const target = resolveImport(file, spec);
        if (!target) {
          findings.push(`${where}: imports ${spec}, which is not a file of src/`);
          continue;
        }
        edges.push(target);
        const to = folderOf(src, target);
        if (from !== to && rule && !within(to, from) && !rule.folders.some((f) => f === '*' || within(to, f)))
          findings.push(
            `${where}: imports ${rel(src, target)}: ${from}/ may import ${rule.folders.join(', ') || 'no folder'} (${from}/README.md), not ${to}/`,
          );
      } else if (rule?.packages && !packageAllowed(spec, rule.packages)) {
        findings.push(
          `${where}: imports the package ${spec}: ${from}/ may import the packages ${rule.packages.join(', ') || 'none'} (${from}/README.md)`,
        );
      }
    }
    graph.set(file, edges);
  }
  for (const component of cycles(graph)) {
    const path = cyclePath(graph, component);
    findings.push(`import cycle: ${path.map((f) => rel(src, f)).join(' -> ')}`);
  }
  return findings.sort();
}

/**
 * The packages a file of src loads, itself or through the src files it imports
 * (transitively, dynamic imports included), sorted. A type-only import or export
 * (`import type … from`, `export type … from`) is erased at build and loads nothing, so it
 * is not followed.
 */
export function packagesReached(src: string, entry: string): string[] {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of importsOf(file, { values: true })) {
      if (!spec.startsWith('.')) packages.add(spec.startsWith('node:') ? spec : packageName(spec));
      else {
        const target = resolveImport(file, spec);
        if (target) visit(target);
      }
    }
  };
  visit(resolve(src, entry));
  return [...packages].sort();
}

// --- internal ---

interface Rule {
  folders: string[];
  packages?: string[];
}

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'static' && name !== 'node_modules') out.push(...listSources(path));
    } else if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/**
 * The unit of src/ a file belongs to: the deepest folder on its way up holding a README.md
 * (`core/text`, `engine`, `tooling/lint`), or '.' for the entries at the top of src/.
 */
function folderOf(src: string, file: string): string {
  const parts = relative(src, file).split(sep).slice(0, -1);
  for (let n = parts.length; n > 1; n--) {
    if (existsSync(join(src, ...parts.slice(0, n), 'README.md'))) return parts.slice(0, n).join('/');
  }
  return parts.length === 0 ? '.' : parts[0]!;
}

/** Whether unit `to` is unit `allowed` or inside it (`core` holds `core/text`). */
function within(to: string, allowed: string): boolean {
  return to === allowed || to.startsWith(`${allowed}/`);
}

function readRules(src: string, files: string[]): { byFolder: Map<string, Rule>; problems: string[] } {
  const byFolder = new Map<string, Rule>([['.', { folders: ['*'] }]]);
  const problems: string[] = [];
  const folders = new Set(files.map((f) => folderOf(src, f)).filter((f) => f !== '.'));
  for (const folder of [...folders].sort()) {
    const readme = join(src, folder, 'README.md');
    if (!existsSync(readme)) {
      problems.push(`${folder}/: no README.md saying what the folder holds and may import`);
      continue;
    }
    const text = readFileSync(readme, 'utf8');
    const may = /^May import:\s*(.*)$/m.exec(text);
    if (!may) {
      problems.push(`${folder}/README.md: no "May import:" line`);
      continue;
    }
    const rule: Rule = { folders: list(may[1]!) };
    for (const f of rule.folders)
      if (f !== '*' && ![...folders].some((u) => within(u, f)))
        problems.push(`${folder}/README.md: May import names ${f}/, which is not a folder of src/`);
    const packages = /^Packages:\s*(.*)$/m.exec(text);
    if (packages) rule.packages = list(packages[1]!);
    byFolder.set(folder, rule);
  }
  return { byFolder, problems };
}

function list(text: string): string[] {
  const items = text
    .replace(/\.$/, '')
    .split(',')
    .map((s) => s.trim().replace(/^`|`$/g, '').replace(/\/$/, ''))
    .filter(Boolean);
  return items.length === 1 && items[0] === 'none' ? [] : items;
}

function packageAllowed(spec: string, allowed: string[]): boolean {
  if (spec.startsWith('node:')) return allowed.includes('node:*') || allowed.includes(spec);
  return allowed.includes(packageName(spec));
}

function packageName(spec: string): string {
  return spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
}

/**
 * Import specifiers of a file: import/export … from, import type, import(), require();
 * with `values`, without the type-only ones (`import type`, `export type`).
 */
function importsOf(file: string, options: { values?: boolean } = {}): string[] {
  const code = withoutComments(readFileSync(file, 'utf8'));
  const specs: string[] = [];
  for (const re of IMPORT_PATTERNS)
    for (const m of code.matchAll(re)) if (!options.values || !TYPE_ONLY.test(m[0])) specs.push(m[2]!);
  return specs;
}

const TYPE_ONLY = /^(?:import|export)\s+type\s/;

const IMPORT_PATTERNS = [
  /\b(?:import|export)\s[^;]*?\bfrom\s*(['"])([^'"\n]+)\1/g,
  /\bimport\s*(['"])([^'"\n]+)\1/g,
  /\b(?:import|require)\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g,
];

/** The source with comments blanked out (strings and template literals kept as they are). */
function withoutComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
      out += ' ';
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function resolveImport(file: string, spec: string): string | undefined {
  const base = resolve(dirname(file), spec);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile() && /\.(ts|tsx|mts)$/.test(c));
}

/** Every strongly connected component with more than one file, or a file importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/** The shortest way round a cycle from the component's first file back to it. */
function cyclePath(graph: Map<string, string[]>, component: string[]): string[] {
  const start = component[0]!;
  const members = new Set(component);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...component, start];
}

function rel(src: string, file: string): string {
  return relative(src, file).split(sep).join('/');
}

// --- run ---

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..', 'src'));
  const findings = checkImports(root);
  for (const f of findings) console.error(f);
  if (findings.length === 0) console.log(`check-imports: ${root}: no cycle, every import points down`);
  process.exitCode = findings.length === 0 ? 0 : 1;
}
