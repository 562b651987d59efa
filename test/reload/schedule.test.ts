import { describe, expect, it } from 'vitest';
import { MAX_HINTS } from '../../src/reload/hints.js';
import { type Clock, type ReadResult, ReloadSchedule } from '../../src/reload/schedule.js';

// The watcher's scheduling on a manual clock: every step is decided by the test, so
// each case runs the same way every time, however busy the machine is.

const OPTIONS = { debounceMs: 10, maxWaitMs: 100, minRetryMs: 20, maxRetryMs: 160 };

describe('when the watcher reads the pack', () => {
  it('reads once the pack has been quiet for the debounce', async () => {
    const { schedule, clock, reads } = setup();
    schedule.notify();
    await clock.advance(5);
    schedule.notify();
    await clock.advance(9);
    expect(reads).toHaveLength(0);
    await clock.advance(1);
    expect(reads.map((r) => [r.at, r.trigger])).toEqual([[15, 'watch']]);
  });

  it('an event during a read forces one more read after it, begun after the event', async () => {
    const { schedule, clock, reads } = setup();
    schedule.notify();
    await clock.advance(10);
    expect(reads).toHaveLength(1);
    await clock.advance(3);
    schedule.notify(); // the pack changed after the read listed it
    await clock.advance(1000);
    expect(reads).toHaveLength(1); // one read at a time
    reads[0]!.finish('settled');
    await clock.advance(10);
    expect(reads).toHaveLength(2);
    expect(reads[1]!.at).toBeGreaterThanOrEqual(13);
    reads[1]!.finish('settled');
    await clock.advance(60_000);
    expect(reads).toHaveLength(2);
  });

  it('any number of events during a read make exactly one more read', async () => {
    const { schedule, clock, reads } = setup();
    schedule.notify();
    await clock.advance(10);
    for (let i = 0; i < 50; i++) {
      schedule.notify();
      await clock.advance(1);
    }
    reads[0]!.finish('settled');
    await clock.advance(1000);
    expect(reads).toHaveLength(2);
    reads[1]!.finish('settled');
    await clock.advance(1000);
    expect(reads).toHaveLength(2);
  });

  it('a read that found the pack changing is repeated without any event, the pause doubling up to maxRetryMs', async () => {
    const { schedule, clock, reads } = setup();
    schedule.notify();
    await clock.advance(10);
    const pauses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const ended = clock.now();
      reads.at(-1)!.finish('unstable');
      await clock.advance(1000);
      pauses.push(reads.at(-1)!.at - ended);
    }
    expect(pauses).toEqual([20, 40, 80, 160, 160, 160]);
    // Once a read is consistent, the pause starts over and nothing more is read.
    reads.at(-1)!.finish('settled');
    await clock.advance(60_000);
    expect(reads).toHaveLength(7);
    schedule.notify();
    await clock.advance(10);
    reads.at(-1)!.finish('unstable');
    await clock.advance(20);
    expect(reads).toHaveLength(9);
  });

  it('an event during the pause after an unstable read brings the read forward', async () => {
    const { schedule, clock, reads } = setup({ ...OPTIONS, minRetryMs: 5000, maxRetryMs: 5000 });
    schedule.notify();
    await clock.advance(10);
    reads[0]!.finish('unstable');
    await clock.advance(100);
    expect(reads).toHaveLength(1);
    schedule.notify();
    await clock.advance(10);
    expect(reads.map((r) => r.at)).toEqual([10, 120]);
  });

  it('a read that fails outright is repeated like an unstable one', async () => {
    const { schedule, clock, reads } = setup();
    schedule.notify();
    await clock.advance(10);
    reads[0]!.fail(new Error('disk gone'));
    await clock.advance(20);
    expect(reads).toHaveLength(2);
  });

  it('a stream of events never postpones a read past maxWaitMs', async () => {
    const { schedule, clock, reads } = setup();
    for (let t = 0; t < 1000; t += 5) {
      schedule.notify();
      await clock.advance(5);
      reads.at(-1)?.finish('settled');
    }
    expect(reads.length).toBeGreaterThanOrEqual(9);
    const starts = reads.map((r) => r.at);
    expect(Math.max(...starts.slice(1).map((t, i) => t - starts[i]!))).toBeLessThanOrEqual(105);
  });

  it('the poll reads only an idle, quiet pack', async () => {
    const { schedule, clock, reads } = setup();
    schedule.poll();
    expect(reads.map((r) => r.trigger)).toEqual(['poll']);
    schedule.poll(); // a read is running
    reads[0]!.finish('settled');
    await clock.advance(1);
    schedule.notify();
    schedule.poll(); // an event is pending
    await clock.advance(10);
    expect(reads.map((r) => r.trigger)).toEqual(['poll', 'watch']);
    expect(schedule.busy).toBe(true);
    reads[1]!.finish('settled');
    await clock.advance(10);
    expect(schedule.busy).toBe(false);
    schedule.poll();
    expect(reads.map((r) => r.trigger)).toEqual(['poll', 'watch', 'poll']);
  });

  it('reads nothing once closed', async () => {
    const { schedule, clock, reads } = setup();
    schedule.notify();
    await clock.advance(10);
    schedule.notify();
    schedule.close();
    reads[0]!.finish('unstable');
    await clock.advance(60_000);
    schedule.notify();
    schedule.poll();
    await clock.advance(60_000);
    expect(reads).toHaveLength(1);
  });
});

describe('which paths a read looks at', () => {
  it('a read takes the paths events named since the last read began, sorted and once each', async () => {
    const { schedule, clock, reads } = setup();
    schedule.notify('roles/b.md');
    schedule.notify('roles/a.md');
    schedule.notify('roles/b.md');
    await clock.advance(10);
    expect(reads.map((r) => r.hints)).toEqual([['roles/a.md', 'roles/b.md']]);
  });

  it('events during a read go to the next read, and only they', async () => {
    const { schedule, clock, reads } = setup();
    schedule.notify('a.md');
    await clock.advance(10);
    schedule.notify('b.md');
    schedule.notify('c/d.md');
    reads[0]!.finish('settled');
    await clock.advance(10);
    expect(reads.map((r) => r.hints)).toEqual([['a.md'], ['b.md', 'c/d.md']]);
  });

  it('an event naming no path makes the next read a full one, and the one after hinted again', async () => {
    const { schedule, clock, reads } = setup();
    schedule.notify('a.md');
    schedule.notify();
    schedule.notify('b.md');
    await clock.advance(10);
    schedule.notify('c.md');
    reads[0]!.finish('settled');
    await clock.advance(10);
    expect(reads.map((r) => r.hints)).toEqual([undefined, ['c.md']]);
  });

  it('more paths than the bound make a full read', async () => {
    const { schedule, clock, reads } = setup();
    for (let i = 0; i < MAX_HINTS; i++) schedule.notify(`roles/r${i}.md`);
    await clock.advance(10);
    expect(reads[0]!.hints).toHaveLength(MAX_HINTS);
    for (let i = 0; i <= MAX_HINTS; i++) schedule.notify(`roles/r${i}.md`);
    reads[0]!.finish('settled');
    await clock.advance(10);
    expect(reads[1]!.hints).toBeUndefined();
  });

  it('a read that decided nothing is retried with its paths and those named since', async () => {
    const { schedule, clock, reads } = setup();
    schedule.notify('a.md');
    await clock.advance(10);
    reads[0]!.finish('unstable');
    await clock.advance(20);
    expect(reads[1]!.hints).toEqual(['a.md']);
    schedule.notify('b.md');
    reads[1]!.fail(new Error('disk gone'));
    await clock.advance(40);
    expect(reads[2]!.hints).toEqual(['a.md', 'b.md']);
    reads[2]!.finish('settled');
    await clock.advance(60_000);
    expect(reads).toHaveLength(3);
  });

  it('what the poll finds is read like what events name: hinted, a poll read unless an event came too', async () => {
    const { schedule, clock, reads } = setup();
    schedule.notify('roles/a.md', 'poll');
    schedule.notify('roles/b.md', 'poll');
    await clock.advance(10);
    expect(reads.map((r) => [r.trigger, r.hints])).toEqual([['poll', ['roles/a.md', 'roles/b.md']]]);
    reads[0]!.finish('settled');
    schedule.notify('roles/c.md', 'poll');
    schedule.notify('roles/d.md');
    await clock.advance(10);
    expect(reads.map((r) => r.trigger)).toEqual(['poll', 'watch']);
    reads[1]!.finish('settled');
    schedule.notify('roles/e.md');
    schedule.notify('roles/f.md', 'poll');
    await clock.advance(10);
    expect(reads.map((r) => r.trigger)).toEqual(['poll', 'watch', 'watch']);
  });

  it('the poll is idle only while no read runs or waits and no event came within the debounce', async () => {
    const { schedule, clock, reads } = setup();
    expect(schedule.idle).toBe(true);
    schedule.notify('a.md');
    expect(schedule.idle).toBe(false);
    await clock.advance(10);
    expect(schedule.idle).toBe(false); // reading
    reads[0]!.finish('settled');
    await clock.advance(0);
    expect(schedule.idle).toBe(true);
    const whole = schedule.poll();
    expect(whole).toBeDefined();
    expect(schedule.poll()).toBeUndefined();
    reads[1]!.finish('settled');
    await whole;
    expect(schedule.idle).toBe(true);
  });

  it('the poll is always a full read, and covers the paths named before it began', async () => {
    const { schedule, clock, reads } = setup();
    schedule.poll();
    expect(reads[0]!.hints).toBeUndefined();
    schedule.notify('a.md');
    reads[0]!.finish('unstable');
    await clock.advance(10);
    // The poll's own retry is full, and includes the event's path.
    expect(reads[1]!.hints).toBeUndefined();
    reads[1]!.finish('settled');
    await clock.advance(60_000);
    expect(reads).toHaveLength(2);
  });
});

// --- internal ---

interface Read {
  at: number;
  trigger: 'watch' | 'poll';
  /** The paths the read looks at (undefined: the whole pack). */
  hints: readonly string[] | undefined;
  finish(result: ReadResult): void;
  fail(e: unknown): void;
}

function setup(options = OPTIONS) {
  const clock = new ManualClock();
  const reads: Read[] = [];
  const schedule = new ReloadSchedule(
    (trigger, hints) =>
      new Promise<ReadResult>((finish, fail) =>
        reads.push({ at: clock.now(), trigger, hints, finish, fail }),
      ),
    { ...options, clock },
  );
  return { schedule, clock, reads };
}

/** Timers that run only when the test moves the time forward. */
class ManualClock implements Clock {
  #now = 0;
  #timers = new Map<number, { at: number; fn: () => void }>();
  #next = 1;

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Moves the time forward, running each timer when its time comes and letting promises settle. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      await settle();
      const due = [...this.#timers]
        .filter(([, t]) => t.at <= end)
        .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].fn();
    }
    this.#now = end;
    await settle();
  }
}

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
