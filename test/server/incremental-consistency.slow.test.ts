import { incrementalConsistency } from './incremental-consistency.js';

// One file and many files at once, rewritten 24 times (the slow tier: a soak).
incrementalConsistency(24, ['one file', 'many files']);
