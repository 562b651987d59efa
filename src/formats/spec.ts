import type { Snapshot } from '../core/build/snapshot.js';
import type { ComposeResult } from '../core/compose/compose.js';

/** What a provider body is made from beside the result: its snapshot and the request's setting overrides. */
export interface FormatContext {
  snapshot: Snapshot;
  settings?: Readonly<Record<string, unknown>>;
}

/**
 * One provider request format: its name (the CLI's `--format`, the API's `format=`, the
 * clients' option), how its body is described, and how it is made from a result.
 */
export interface ProviderFormatSpec<Body> {
  name: string;
  /** The body's shape in a few words, for the API document (`openai {messages:[…]}`). */
  shape: string;
  /** What the body is, in one line. */
  summary: string;
  body(result: ComposeResult, context: FormatContext): Body;
}
