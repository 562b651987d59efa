/**
 * `strata-prompts/cli`: the `strata` command line as a function, `run(argv, io)`.
 *
 * @example
 * import { run } from 'strata-prompts/cli';
 * process.exitCode = await run(process.argv.slice(2), { stdout, stderr, env: process.env, cwd: process.cwd() });
 *
 * @packageDocumentation
 */

export type { CliIO } from './cli/io.js';
export { run } from './cli/run.js';
