/** What the CLI may touch, passed in so tests run it without a process. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Whether stdout is a terminal (for colour and tables). */
  isTTY?: boolean;
  /** Standard input, for commands that read it. */
  stdin?: () => Promise<string>;
  /** Standard input as a stream of chunks, for a command that converses on it (`mcp`). */
  input?: AsyncIterable<Uint8Array | string>;
  /**
   * Stops long-running commands (`serve`): when it aborts, the command shuts down
   * gracefully and returns. The abort reason (e.g. `'SIGTERM'`) is logged. The bin
   * wires SIGTERM and SIGINT to it; tests abort it themselves.
   */
  signal?: AbortSignal;
}

/** How a command reports its exit status to `run`. */
export type Exit = (code: number) => void;

/** A usage error: bad flags or arguments (exit status 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT_OK = 0;
export const EXIT_FAIL = 1;
export const EXIT_USAGE = 2;
