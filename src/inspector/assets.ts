import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatDiagnostic, formatLocation } from '../core/text/diagnostics.js';

/** One file of the inspector page: its content type and bytes. */
export interface InspectorAsset {
  type: string;
  body: Uint8Array | string;
}

/**
 * The inspector web page (`GET /`; docs/inspector.md), keyed by URL path: `/` is
 * the page itself, every other file of `src/inspector/static/` is served at `/<name>`,
 * the core's diagnostic formatter at `/diagnostic-format.js` (the CLI's and the
 * server's own functions, so the page prints diagnostics in the same line), and the
 * `diff` package's browser build at `/vendor/diff.js`. Everything the page needs
 * is here: it loads nothing from elsewhere and works offline. Read once at start-up and
 * serve from memory.
 *
 * @example
 * const assets = await inspectorAssets();
 * const page = assets.get('/'); // { type: 'text/html; charset=utf-8', body: '<!doctype html>…' }
 */
export async function inspectorAssets(): Promise<Map<string, InspectorAsset>> {
  const dir = staticDir();
  const assets = new Map<string, InspectorAsset>();
  const names = (await readdir(dir)).filter((name) => TYPES[extname(name)] !== undefined).sort();
  for (const name of names) {
    const body = await readFile(join(dir, name));
    const path = name === 'index.html' ? '/' : `/${name}`;
    assets.set(path, { type: TYPES[extname(name)]!, body: new Uint8Array(body) });
  }
  assets.set('/diagnostic-format.js', { type: TYPES['.js']!, body: diagnosticFormatModule() });
  assets.set('/vendor/diff.js', { type: TYPES['.js']!, body: await diffBrowserBuild() });
  return assets;
}

// --- internal ---

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

let found: string | undefined;

/** `src/inspector/static/` of the package: found by walking up (tsc does not copy it to dist/). */
function staticDir(): string {
  if (found) return found;
  let here = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(here, 'src', 'inspector', 'static');
    if (existsSync(join(candidate, 'index.html'))) {
      found = candidate;
      return found;
    }
    here = dirname(here);
  }
  throw new Error('strata: the inspector page (src/inspector/static/) is missing from the package');
}

/**
 * A browser module exporting the core's `formatLocation` and `formatDiagnostic`: their
 * own code (as the running build has it), not a copy, so the page's diagnostic lines
 * cannot drift from the CLI's and the server's. Both are pure and call nothing else.
 */
function diagnosticFormatModule(): string {
  return [
    "// strata's diagnostic line format, from src/core/diagnostics.ts (generated at start-up).",
    `export ${formatLocation.toString()}`,
    `export ${formatDiagnostic.toString()}`,
    '',
  ].join('\n');
}

/** The single-file UMD build of `diff` (jsdiff), which defines the `Diff` global, with its licence line. */
async function diffBrowserBuild(): Promise<string> {
  const pkgFile = createRequire(import.meta.url).resolve('diff/package.json');
  const pkg = JSON.parse(await readFile(pkgFile, 'utf8')) as { version: string; license: string };
  const code = await readFile(join(dirname(pkgFile), 'dist', 'diff.min.js'), 'utf8');
  return `/*! jsdiff ${pkg.version} | ${pkg.license} | github.com/kpdecker/jsdiff */\n${code}`;
}
