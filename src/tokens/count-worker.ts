import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { getTokenizer, type TokenizerName } from './tokenizer.js';

// The body of the token-counting worker thread (started by `count-off-thread.ts`):
// counts the texts of each message and posts the counts back under the message's id.
//
// Counts are auxiliary and the event loop is not: on Linux the thread lowers its own
// scheduling priority, so that on a busy machine the service's event loop (health
// probes, cached prompts) gets the CPU first and counting takes what is left. It asks for
// SCHED_IDLE (through util-linux's `chrt`): a thread of that class is preempted as soon
// as any other wakes, where at nice 10 the kernel lets it finish its time slice first,
// delaying the event loop's wake-ups by milliseconds under a stream of long counts. Where
// `chrt` is missing or not allowed, it counts at nice 10. Within a container's own CPU
// cgroup the class only orders the service's own threads; on a machine whose cores other
// processes keep busy, an idle-class thread gets next to no CPU, and counts then run past
// their budget (prompts are answered without them, TOKEN_BUDGET_EXCEEDED). The priority
// is lowered once the first message is counted: the tokenizer's tables (the start-up
// warm-up, which `/readyz` waits for) load at the process's own priority, so a busy
// machine never holds a starting service unready.
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

/** The worker thread's nice value where SCHED_IDLE cannot be had: counting yields the CPU to the event loop. */
const WORKER_NICE = 10;

let lowered = false;

parentPort?.on('message', (message: CountMessage) => {
  if (Date.now() > message.dropAfter) {
    parentPort!.postMessage({ id: message.id, counts: null });
    return;
  }
  const tk = getTokenizer(message.tokenizer);
  const counts = message.texts.map((t) => tk.count(t));
  // Lowered before the first answer is sent, so whoever awaits it finds it lowered.
  if (!lowered) {
    lowered = true;
    lowerPriority();
  }
  parentPort!.postMessage({ id: message.id, counts });
});

// --- internal ---

function lowerPriority(): void {
  try {
    // Linux schedules threads one by one: /proc/thread-self names this thread's id.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return;
    setPriority(tid, WORKER_NICE);
    execFileSync('chrt', ['--idle', '--pid', '0', String(tid)], { stdio: 'ignore', timeout: 5000 });
  } catch {
    // Not Linux, no `chrt`, or not allowed: count at nice 10, or at the process's priority.
  }
}
