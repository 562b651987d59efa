import os from 'node:os';
import { TREE_NOTE } from './lib.js';
import { machine } from './measure.js';
import { reloadRows } from './reload-rows.js';

// `npm run bench:reload [-- --roles 10000,50000 --edits 50] [--agents N] [--back-to-back] [--meta]`: a
// running service on a generated pack; each edit rewrites the text of one role file (its
// frontmatter kept, unless `--meta`) and times until a client fetching
// that role gets the new bytes (file write → new bytes served), through the watcher,
// the consistent read, the incremental build and the reload comparison. Also reported:
// how long the service took after start-up to work out what each member reads (done in
// the background; edits are timed once it is done, as in a service that has been up a
// while), and the longest the event loop was held during the edits (the same process
// runs the fetching client, so this is what any request could have waited). `--agents`
// gives the pack a fleet of N agents with identity files (`roles`: one per role). Each edit is
// made to an idle service: once the previous edit is served, the next waits until no
// reload has run for 300 ms (the watcher reads once more after a read that saw events
// arrive during it); `--back-to-back` writes the next edit at once instead.

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1]!;
};

console.log(
  `machine: ${machine()}; ${TREE_NOTE}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')}`,
);
console.log('');
await reloadRows({
  sizes: arg('--roles', '1000,10000').split(',').map(Number),
  edits: Number(arg('--edits', '50')),
  backToBack: process.argv.includes('--back-to-back'),
  meta: process.argv.includes('--meta'),
  agents: process.argv.includes('--agents') ? arg('--agents', '0') : undefined,
});
