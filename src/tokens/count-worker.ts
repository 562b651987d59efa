import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { getTokenizer, type TokenizerName } from './tokenizer.js';

// The body of the token-counting worker thread (started by `count-off-thread.ts`):
// counts the texts of each message and posts the counts back under the message's id.
//
// Counts are auxiliary and the event loop is not: on Linux the thread lowers its own
// scheduling priority (nice 10), so that on a busy machine the service's event loop
// (health probes, cached prompts) gets the CPU first and counting takes what is left.
// A message that waited in the queue past its `dropAfter` time (its request gave up on
// it long ago) is answered `null` without counting, so a burst of requests cannot leave
// minutes of counting behind it.

interface CountMessage {
  id: number;
  tokenizer: TokenizerName;
  texts: string[];
  /** `Date.now()` after which the message is not worth counting. */
  dropAfter: number;
}

/** The worker thread's nice value: counting yields the CPU to the event loop. */
const WORKER_NICE = 10;

lowerPriority();

parentPort?.on('message', (message: CountMessage) => {
  if (Date.now() > message.dropAfter) {
    parentPort!.postMessage({ id: message.id, counts: null });
    return;
  }
  const tk = getTokenizer(message.tokenizer);
  parentPort!.postMessage({ id: message.id, counts: message.texts.map((t) => tk.count(t)) });
});

// --- internal ---

function lowerPriority(): void {
  try {
    // Linux schedules threads one by one: /proc/thread-self names this thread's id.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, WORKER_NICE);
  } catch {
    // Not Linux, or not allowed: count at the process's priority.
  }
}
