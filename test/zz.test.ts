import { it } from 'vitest';
import { readPackBundle } from '../src/source/bundle.js';
import { readPackDir } from '../src/source/read-dir.js';

it('x', async () => {
  console.log((await readPackDir('/tmp/rt3/p', { maxFiles: 3 })).diagnostics);
  console.log((await readPackBundle('/tmp/rt3/p.tar', { maxFiles: 3 })).diagnostics);
});
