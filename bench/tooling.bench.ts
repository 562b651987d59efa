import os from 'node:os';
import { TREE_NOTE } from './lib.js';
import { machine } from './measure.js';
import { toolingRows } from './tooling-rows.js';

// `npm run bench:tooling [-- --sizes 500,1000,2000] [--rounds 5]`: `strata validate` and
// `strata diff` of generated fleets, in this process and (built first) in fresh processes;
// see bench/tooling-rows.ts.

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
await toolingRows({
  sizes: arg('--sizes', '500,1000,2000').split(',').map(Number),
  rounds: Number(arg('--rounds', '5')),
});
