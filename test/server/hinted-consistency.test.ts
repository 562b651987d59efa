import { hintedConsistency } from './hinted-consistency.js';

// A short run (many files at once, rename-saved, a folder added and removed: the harder
// case); hinted-consistency.slow.test.ts covers every case, rewritten more often.
hintedConsistency(2, [['many files', 'rename-saved']]);
