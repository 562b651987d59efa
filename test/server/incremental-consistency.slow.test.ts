import { incrementalConsistency } from './incremental-consistency.js';

// The longer run of incremental-consistency.test.ts: one file and many files at once.
incrementalConsistency(24, ['one file', 'many files']);
