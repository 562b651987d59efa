import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { indexPack } from '../src/core/pack-compare.js';
import { startService } from '../src/server/node.js';
import { BENCH_LIMITS, generatePack } from './gen-pack.js';
import { machine } from './measure.js';

// `npm run bench:reload [-- --roles 10000,50000 --edits 50] [--back-to-back] [--meta]`: a
// running service on a generated pack; each edit rewrites the text of one role file (its
// frontmatter kept, unless `--meta`) and times until a client fetching
// that role gets the new bytes (file write → new bytes served), through the watcher,
// the consistent read, the incremental build and the reload comparison. Also reported:
// how long the service took after start-up to work out what each member reads (done in
// the background; edits are timed once it is done, as in a service that has been up a
// while), and the longest the event loop was held during the edits (the same process
// runs the fetching client, so this is what any request could have waited). Each edit is
// made to an idle service: once the previous edit is served, the next waits until no
// reload has run for 300 ms (the watcher reads once more after a read that saw events
// arrive during it); `--back-to-back` writes the next edit at once instead.

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1]!;
};
const sizes = arg('--roles', '1000,10000').split(',').map(Number);
const edits = Number(arg('--edits', '50'));
const backToBack = process.argv.includes('--back-to-back');
// `--meta`: each edit also changes the role file's frontmatter (its metadata feeds the role
// registry, so the whole pack is built again); by default an edit changes the prompt text.
const meta = process.argv.includes('--meta');

/** A role file as the generated pack has it (same frontmatter), with a new body. */
function roleFile(role: string, marker: string): string {
  const n = role.slice('role-'.length);
  const front = meta ? `name: Role ${n}\ndescription: ${marker}\n` : `name: Role ${n}\n`;
  return `---\n${front}---\n# Role ${n}\n\n${marker}\n`;
}

console.log(
  `machine: ${machine()}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')}`,
);
console.log('');
console.log(
  '| roles | files | edits | first load ms | member index ms | edit → served p50 ms | p99 ms | max ms | longest event-loop block ms | fetches retried |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const roles of sizes) {
  const dir = mkdtempSync(join(os.tmpdir(), `strata-reload-${roles}-`));
  const files = generatePack(dir, roles);
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
  console.log(
    `| ${roles.toLocaleString('en-US')} | ${files.toLocaleString('en-US')} | ${edits} | ${firstLoad.toFixed(0)} | ${indexMs.toFixed(0)} | ${q(0.5).toFixed(0)} | ${q(0.99).toFixed(0)} | ${samples.at(-1)!.toFixed(0)} | ${(delay.max / 1e6).toFixed(0)} | ${socketErrors} |`,
  );
}
