import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { countOffThread, stopCountWorker, warmCountWorker } from '../../src/tokens/count-off-thread.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';

// The counting worker lowers its own thread's priority (nice 10) so that on a busy
// machine the event loop gets the CPU first. It once tried to before its nice value was
// defined, and counted at the event loop's priority without a word.

afterAll(() => stopCountWorker());

/** The nice value of each of this process's threads, by thread id (Linux). */
function niceByThread(): Map<number, number> {
  const nice = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command's closing parenthesis: state is the 3rd field, nice the 19th.
      nice.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // the thread ended
    }
  }
  return nice;
}

describe.runIf(process.platform === 'linux')('the counting worker thread', () => {
  it('counts at nice 10 while the thread that started it keeps its priority', async () => {
    const before = niceByThread().get(process.pid);
    await warmCountWorker('o200k_base');
    const after = niceByThread();
    expect([...after.values()].filter((n) => n === 10).length).toBeGreaterThanOrEqual(1);
    expect(after.get(process.pid)).toBe(before);
  });

  it('counts exactly as the inline tokenizer does', async () => {
    const text = `${'x'.repeat(5000)} ${'中'.repeat(3000)}`;
    const [count] = await countOffThread('o200k_base', [text], 60_000);
    expect(count).toBe(getTokenizer('o200k_base').count(text));
  });
});
