import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import type * as DefaultEngineModule from '../src/engine/default-engine.js';
import type * as StartModule from '../src/server/node/start.js';
import { agentsFor, BENCH_LIMITS, generatePack } from './gen-pack.js';
import { fromTree } from './lib.js';

// The service measured is the built one (or the sources with BENCH_SRC=1: see lib.ts).
const { indexPack } = await fromTree<typeof DefaultEngineModule>('engine/default-engine.js');
const { startService } = await fromTree<typeof StartModule>('server/node/start.js');

/** How {@link reloadRows} edits and measures. */
export interface ReloadRowsOptions {
  /** Pack sizes, in roles. */
  sizes: number[];
  /** Edits per size. */
  edits: number;
  /** Write each edit at once, not to an idle service. */
  backToBack?: boolean;
  /** Change each edited file's frontmatter too (the registry reads it: a full build). */
  meta?: boolean;
  /**
   * A fleet of this many agents, each with its identity file (`roles`: as many as the pack
   * has roles; default none: every role is a member).
   */
  agents?: string;
  /** Where the table's lines go. */
  log?: (line: string) => void;
}

/**
 * Edit → served at fleet scale: a running service on a generated pack; each edit rewrites
 * the text of one role file (its frontmatter kept, unless `meta`) and times until a client
 * fetching that role gets the new bytes (file write → new bytes served), through the
 * watcher, the read, the build and the reload comparison. Prints one table row per size.
 */
export async function reloadRows(options: ReloadRowsOptions): Promise<void> {
  const { sizes, edits, backToBack = false, meta = false, log = console.log } = options;
  /** A role file as the generated pack has it (same frontmatter), with a new body. */
  const roleFile = (role: string, marker: string): string => {
    const n = role.slice('role-'.length);
    const front = meta ? `name: Role ${n}\ndescription: ${marker}\n` : `name: Role ${n}\n`;
    return `---\n${front}---\n# Role ${n}\n\n${marker}\n`;
  };
  log(
    '| roles | agents | files | edits | first load ms | member index ms | edit → served p50 ms | p99 ms | max ms | longest event-loop block ms | fetches retried |',
  );
  log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const roles of sizes) {
    const dir = mkdtempSync(join(os.tmpdir(), `strata-reload-${roles}-`));
    const agents = agentsFor(options.agents, roles);
    const files = generatePack(dir, roles, agents);
    const t0 = performance.now();
    const started = await startService({
      dir,
      env: {},
      port: 0,
      pollMs: 0,
      logger: pino({ level: 'silent' }),
      ...BENCH_LIMITS,
    });
    if (!started.ok) throw new Error(JSON.stringify(started.diagnostics.slice(0, 3)));
    const firstLoad = performance.now() - t0;
    const { service } = started;
    const i0 = performance.now();
    await indexPack(service.store.state!.snapshot);
    const indexMs = performance.now() - i0;
    // The watcher reads the whole pack once it is ready: a reload asked for now runs after
    // that read, so when it returns the service is idle (as one that has been up a while).
    await service.store.reload('manual');
    // Let the generated files settle, as a real pack's have: unchanged files are then reused.
    await new Promise((r) => setTimeout(r, 1500));
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const samples: number[] = [];
    let socketErrors = 0;
    let lastAttempt = performance.now();
    service.store.subscribe((event) => {
      if (event.type === 'attempt') lastAttempt = performance.now();
    });
    for (let e = 0; e < edits; e++) {
      if (!backToBack) {
        const until = performance.now() + 30_000;
        while (performance.now() - lastAttempt < 300 && performance.now() < until)
          await new Promise((r) => setTimeout(r, 20));
      }
      const role = `role-${(e * 7919) % roles}`;
      const marker = `Edit ${e} of the benchmark.`;
      const url = `${service.url}/api/prompts/${role}`;
      const start = performance.now();
      writeFileSync(join(dir, 'roles', `${role}.md`), roleFile(role, marker));
      for (;;) {
        // A keep-alive socket the server closed while busy is retried, and counted.
        const text = await fetch(url, { headers: { accept: 'text/plain' } })
          .then((r) => r.text())
          .catch(() => {
            socketErrors++;
            return '';
          });
        if (text.includes(marker)) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      samples.push(performance.now() - start);
    }
    delay.disable();
    await service.close();
    rmSync(dir, { recursive: true, force: true });
    samples.sort((a, b) => a - b);
    const q = (p: number) => samples[Math.min(samples.length - 1, Math.ceil(p * samples.length) - 1)]!;
    log(
      `| ${roles.toLocaleString('en-US')} | ${agents.toLocaleString('en-US')} | ${files.toLocaleString('en-US')} | ${edits} | ${firstLoad.toFixed(0)} | ${indexMs.toFixed(0)} | ${q(0.5).toFixed(0)} | ${q(0.99).toFixed(0)} | ${samples.at(-1)!.toFixed(0)} | ${(delay.max / 1e6).toFixed(0)} | ${socketErrors} |`,
    );
  }
}
