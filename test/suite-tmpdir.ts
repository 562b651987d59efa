import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest's global setup: every temporary folder of the run — the tests', and those of the
 * CLIs and services they start — is made in one folder of the run's own (TMPDIR, which
 * `os.tmpdir()` reads and child processes inherit), removed when the run ends, so runs do
 * not pile packs, bundles and repositories up in the system's temporary folder. It is
 * open to every user, as /tmp is (sticky, world-writable): some tests run strata as
 * another user.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'strata-suite-'));
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
