import { type Diagnostic, warning } from '../../core/text/diagnostics.js';
import { lineCol } from '../../core/text/text.js';

/** A parsed UCXL address: `ucxl://agent:role@project:task/<temporal>/path`. */
export interface UcxlAddress {
  agent: string;
  role: string;
  project: string;
  task: string;
  /** `*^`, `*~`, `*~N`, `~~N`, `^^N`, or `#` (the document form `…/#/path`). */
  temporal: string;
  /** The path inside the project, with its leading `/`. */
  path: string;
}

/**
 * Parses one UCXL address against the grammar
 * `ucxl://agent:role@project:task/<temporal>/path`, where each of agent, role, project
 * and task is `[A-Za-z0-9_-]+` (`any` included), the temporal selector is `*^` (latest),
 * `*~` (first), `*~N` (version N), `~~N` (N back) or `^^N` (N forward), or `#` in the
 * `…/#/path` form documents use. Returns the address, or the reason it does not parse.
 *
 * @example
 * parseUcxl('ucxl://any:arbiter@CHORUS:prompt-sourcing/*^/docs/decisions/a.md'); // { ok: true, … }
 */
export function parseUcxl(text: string): { ok: true; address: UcxlAddress } | { ok: false; problem: string } {
  if (!text.startsWith(SCHEME)) return { ok: false, problem: 'an address starts with ucxl://' };
  const rest = text.slice(SCHEME.length);
  const auth = AUTHORITY_RE.exec(rest);
  if (!auth) {
    return {
      ok: false,
      problem: 'expected agent:role@project:task, each of letters, digits, _ and - (or any), then /',
    };
  }
  const after = rest.slice(auth[0].length);
  const slash = after.indexOf('/');
  const temporal = slash === -1 ? after : after.slice(0, slash);
  if (!TEMPORAL_RE.test(temporal)) {
    return {
      ok: false,
      problem: `temporal selector ${JSON.stringify(temporal)} is not one of *^, *~, *~N, ~~N, ^^N or #`,
    };
  }
  if (slash === -1) return { ok: false, problem: `expected /path after the temporal selector ${temporal}` };
  const path = after.slice(slash);
  if (!PATH_RE.test(path)) {
    return {
      ok: false,
      problem: `path ${JSON.stringify(path)} has an empty, . or .. segment, or a character outside [A-Za-z0-9._~%+=@-]`,
    };
  }
  const [, agent, role, project, task] = auth as unknown as [string, string, string, string, string];
  return { ok: true, address: { agent, role, project, task, temporal, path } };
}

/**
 * Finds every `ucxl://` address in a text and returns a BAD_UCXL warning, at the
 * address's line:col, for each one that does not parse. An address ends at whitespace,
 * a quote, a bracket or a backtick; trailing sentence punctuation is not part of it.
 */
export function ucxlDiagnostics(file: string, text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const m of text.matchAll(FIND_RE)) {
    const address = m[0].replace(/[.,;:!?]+$/, '');
    const parsed = parseUcxl(address);
    if (!parsed.ok) {
      out.push(
        warning('BAD_UCXL', `${address} is not a UCXL address: ${parsed.problem}`, {
          file,
          ...lineCol(text, m.index),
        }),
      );
    }
  }
  return out;
}

// --- internal ---

const SCHEME = 'ucxl://';
const COMPONENT = '[A-Za-z0-9_-]+';
const AUTHORITY_RE = new RegExp(`^(${COMPONENT}):(${COMPONENT})@(${COMPONENT}):(${COMPONENT})/`);
const TEMPORAL_RE = /^(?:\*\^|\*~\d*|~~\d+|\^\^\d+|#)$/;
const SEGMENT = '(?!\\.\\.?(?:/|$))[A-Za-z0-9._~%+=@-]+';
const PATH_RE = new RegExp(`^(?:/${SEGMENT})+/?$|^/$`);
const FIND_RE = /ucxl:\/\/[^\s`'"<>()[\]{}]*/g;
