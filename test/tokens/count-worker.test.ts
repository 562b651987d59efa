import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { countOffThread, stopCountWorker, warmCountWorker } from '../../src/tokens/count-off-thread.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';

// The counting worker lowers its own thread's priority (SCHED_IDLE where `chrt` can set
// it, else nice 10) so that on a busy machine the event loop gets the CPU first. It once
// tried to before its nice value was defined, and counted at the event loop's priority
// without a word.

afterAll(() => stopCountWorker());

/** The nice value and scheduling policy of each of this process's threads, by thread id (Linux). */
function schedulingByThread(): Map<number, { nice: number; policy: number }> {
  const threads = new Map<number, { nice: number; policy: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command's closing parenthesis, from the 3rd (state): nice is the
      // 19th field, policy the 41st.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(Number(tid), { nice: Number(fields[16]), policy: Number(fields[38]) });
    } catch {
      // the thread ended
    }
  }
  return threads;
}

/** Linux's SCHED_IDLE policy number. */
const SCHED_IDLE = 5;

/** Whether util-linux's `chrt` can set SCHED_IDLE here. */
function chrtWorks(): boolean {
  try {
    execFileSync('chrt', ['--idle', '0', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.runIf(process.platform === 'linux')('the counting worker thread', () => {
  it('counts under SCHED_IDLE (nice 10 without chrt) while the thread that started it keeps its priority', async () => {
    const before = schedulingByThread().get(process.pid);
    await warmCountWorker('o200k_base');
    const after = schedulingByThread();
    const lowered = [...after.values()].filter((t) => t.nice === 10);
    expect(lowered.length).toBeGreaterThanOrEqual(1);
    if (chrtWorks()) expect(lowered.some((t) => t.policy === SCHED_IDLE)).toBe(true);
    expect(after.get(process.pid)).toEqual(before);
  });

  it('counts exactly as the inline tokenizer does', async () => {
    const text = `${'x'.repeat(5000)} ${'中'.repeat(3000)}`;
    const [count] = await countOffThread('o200k_base', [text], 60_000);
    expect(count).toBe(getTokenizer('o200k_base').count(text));
  });
});
