#!/usr/bin/env node
import { run } from '../src/cli/run.js';

// SIGTERM and SIGINT abort the stop signal of long-running commands (`serve`). The
// handlers are installed only when a command asks for the signal, so every other command
// keeps the default behaviour (Ctrl-C ends it at once).
let stop: AbortController | undefined;

process.exitCode = await run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  isTTY: process.stdout.isTTY,
  get signal() {
    if (!stop) {
      const controller = new AbortController();
      for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => controller.abort(name));
      stop = controller;
    }
    return stop.signal;
  },
});
