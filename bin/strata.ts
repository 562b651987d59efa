#!/usr/bin/env node
import { run } from '../src/cli/run.js';
import { streamWriter } from '../src/cli/stream-writer.js';

// SIGTERM and SIGINT abort the stop signal of long-running commands (`serve`). The
// handlers are installed only when a command asks for the signal, so every other command
// keeps the default behaviour (Ctrl-C ends it at once).
let stop: AbortController | undefined;

// A reader that goes away (`strata roles | head -1`) drops the rest of the output; it
// neither crashes the process nor changes its exit status.
const stdout = streamWriter(process.stdout);
const stderr = streamWriter(process.stderr);

process.exitCode = await run(process.argv.slice(2), {
  stdout,
  stderr,
  env: process.env,
  cwd: process.cwd(),
  isTTY: process.stdout.isTTY,
  // Read only by a command that converses on stdin (`mcp`): touched, it is opened.
  get input() {
    return process.stdin;
  },
  get signal() {
    if (!stop) {
      const controller = new AbortController();
      for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => controller.abort(name));
      stop = controller;
    }
    return stop.signal;
  },
});
