import { join } from 'node:path';
import type { Snapshot } from '../src/core/build/snapshot.js';
import type * as ComposeModule from '../src/core/compose/compose.js';
import type * as CacheModule from '../src/tokens/cache.js';
import type * as CountModule from '../src/tokens/count.js';
import type * as TokenizerModule from '../src/tokens/tokenizer.js';
import { fromTree, loadPackStrict, TREE_NOTE } from './lib.js';
import { machine, timeIt } from './measure.js';

const { compose } = await fromTree<typeof ComposeModule>('core/compose/compose.js');
const { analyzeCache } = await fromTree<typeof CacheModule>('tokens/cache.js');
const { withTokens } = await fromTree<typeof CountModule>('tokens/count.js');
const { getTokenizer } = await fromTree<typeof TokenizerModule>('tokens/tokenizer.js');

/**
 * `npm run bench:tokens`: token counting of every fleet member of examples/roboco (fable
 * on), the first time for a snapshot (every layer and total counted) and cached (the
 * same snapshot again), against the bare tokenizer counting each whole text.
 */
const log = (line: string) => console.log(line);
log(`machine: ${machine()}; ${new Date().toISOString().slice(0, 10)}; ${TREE_NOTE}`);

// 1. Loading the encodings (once per process, on first count).
const loadMs = (name: 'o200k_base' | 'cl100k_base') => {
  const start = performance.now();
  getTokenizer(name).count('warm up');
  return performance.now() - start;
};
const o200kLoad = loadMs('o200k_base');
const cl100kLoad = loadMs('cl100k_base');

// 2. The fleet's results, composed once.
const snapshot = await loadPackStrict(join(import.meta.dirname, '..', 'examples', 'roboco'), { env: {} });
const settings = { fable_mode_enabled: 'on' };
const results = snapshot.fleet.map((a) => compose(snapshot, { agent: a.id, settings }));
const tokenizer = getTokenizer('o200k_base');
const bytes = results.reduce((n, r) => n + r.bytes, 0);

const bare = await timeIt(() => {
  for (const r of results) tokenizer.count(r.text);
}, 1500);
// A shallow copy is a new snapshot identity: its token cache starts empty.
const first = await timeIt(() => {
  const fresh: Snapshot = { ...snapshot };
  for (const r of results) withTokens(r, fresh, tokenizer);
}, 1500);
const cached = await timeIt(() => {
  for (const r of results) withTokens(r, snapshot, tokenizer);
}, 1500);
const cache = await timeIt(() => analyzeCache({ ...snapshot }, tokenizer, { settings }), 1500);
const tokens = withTokens(results[0]!, snapshot, tokenizer).tokens.total;

const us = (ms: number) => (ms >= 1 ? `${ms.toFixed(1)} ms` : `${(ms * 1000).toFixed(1)} µs`);
log('');
log(
  `## Token counting (${results.length} fleet members of examples/roboco, fable on; ${bytes.toLocaleString('en-US')} bytes, o200k_base)`,
);
log('');
log('| | per fleet pass | per member |');
log('| --- | --- | --- |');
log(
  `| baseline: gpt-tokenizer counts each whole text | ${us(bare.median)} | ${us(bare.median / results.length)} |`,
);
log(
  `| withTokens, first time for a snapshot (every layer + total) | ${us(first.median)} | ${us(first.median / results.length)} |`,
);
log(`| withTokens, cached (same snapshot) | ${us(cached.median)} | ${us(cached.median / results.length)} |`);
log(`| explain --cache analysis, fresh snapshot (compose + count the fleet) | ${us(cache.median)} | |`);
log('');
log(
  `Encoding load on first count: o200k_base ${o200kLoad.toFixed(0)} ms, cl100k_base ${cl100kLoad.toFixed(0)} ms. First member (ada): ${tokens} tokens.`,
);
