import { incrementalConsistency } from './incremental-consistency.js';

// A short run (many files at once, the harder case); incremental-consistency.slow.test.ts
// covers one file and many files, rewritten more often.
incrementalConsistency(2, ['many files']);
