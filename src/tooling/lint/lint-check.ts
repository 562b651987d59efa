import type { Snapshot } from '../../core/build/snapshot.js';
import type { ComposeOutcome } from '../../core/compose/compose.js';
import type { Member } from '../../core/compose/members.js';
import type { Diagnostic } from '../../core/text/diagnostics.js';

/** What a lint check sees: the pack's texts and, when it loads, its snapshot and composed members. */
export interface LintContext {
  /** The decoded text of every pack file that is valid UTF-8 (frontmatter included), by path. */
  texts: ReadonlyMap<string, string>;
  /**
   * Every path read, of the pack or not (a YAML file beside the pack's files, read to tell
   * its layout): the closest names of a file the manifest names and the pack lacks.
   */
  readPaths?: readonly string[];
  /** The snapshot, when the pack loads without errors. */
  snapshot?: Snapshot;
  /**
   * Every member (fleet agent, else role) composed with the pack's settings; empty without
   * a snapshot. An input the member needs and the request does not give stands in
   * (`standIns`, see `composeWithStandIns`); `vars` are the inputs it was composed with.
   */
  members: ReadonlyArray<{
    member: Member;
    outcome: ComposeOutcome;
    vars?: Readonly<Record<string, string>>;
    standIns?: readonly string[];
  }>;
  /** Request inputs every member is composed with (`strata validate --var`). */
  vars?: Readonly<Record<string, string>>;
}

/** One check of `strata validate`: reads the context, returns its findings. */
export type LintCheck = (ctx: LintContext) => Diagnostic[];
