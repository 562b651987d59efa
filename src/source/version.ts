import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package version, reported by `strata --version` and the service: read from the
 * package's own package.json (the one source), found by walking up from this module,
 * from the sources and from the build alike.
 */
export const VERSION: string = packageVersion();

// --- internal ---

function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown };
      if (typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('strata: package.json not found above its modules');
    dir = up;
  }
}
