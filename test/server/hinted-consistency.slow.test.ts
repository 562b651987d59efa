import { hintedConsistency } from './hinted-consistency.js';

hintedConsistency(8, [
  ['one file', 'written in place'],
  ['one file', 'rename-saved'],
  ['many files', 'written in place'],
  ['many files', 'rename-saved'],
]);
