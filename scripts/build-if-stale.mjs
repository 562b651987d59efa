// `npm start` (and `npm ci`, through prepare) runs this first: it builds dist/ (tsc) only
// when a source file is newer than the last build, so a start after an unchanged checkout
// goes straight to serving. `--force` builds in any case (`npm run build`). Plain
// JavaScript, so it starts without a TypeScript loader.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const stamp = join(root, 'dist', '.build-stamp');
const built = mtime(stamp);
const inputs = ['src', 'bin', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
const force = process.argv.includes('--force');
if (force || built === 0 || inputs.some((p) => newest(join(root, p)) > built)) {
  if (!force) process.stderr.write('building dist/ (a source file changed since the last build)\n');
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** The newest modification time of a file, or of any file below a folder. */
function newest(path) {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) max = Math.max(max, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return max;
}
