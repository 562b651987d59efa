// The shell commands of README.md and docs/*.md, as a reader would type them. The rules
// (docs/development.md, "Docs that run"):
//
// - A fenced block whose language is sh, bash, shell or console: every line is a command
//   (a line ending in `\` goes on), `#` lines are comments.
// - A fenced `text` block: the lines starting with `$ ` are commands, and the lines after
//   one, up to the next, are what it prints (stdout and stderr together; a line ending in
//   ` …` stands for every line that starts with what comes before it).
// - `# exit N` in a command's trailing comment is the exit status it ends with (else 0;
//   the first `exit N` of the comment).
// - A block whose info string says `no-run` (```` ```sh no-run ````) is shown, not run: a
//   service that does not end, docker, kubectl. A command holding a placeholder such as
//   `<your-pack>` is not run either (a runnable line stands beside it).
// - A block whose info string says `service` runs while a service serves examples/roboco;
//   `127.0.0.1:7411` and `localhost:7411` in its commands are that service's address.

/** One command of a doc. */
export interface DocCommand {
  /** The doc, relative to the repository. */
  file: string;
  /** 1-based line of the command in the doc. */
  line: number;
  command: string;
  /** The exit status the doc says it ends with. */
  status: number;
  /** What the doc shows it printing, line by line (text blocks only). */
  output?: string[];
  /** Runs against a service on examples/roboco. */
  service: boolean;
}

/** Why a command is shown but not run. */
export interface SkippedCommand {
  file: string;
  line: number;
  command: string;
  why: 'no-run' | 'placeholder';
}

/**
 * The commands of a Markdown text, in order, and those it shows without running.
 *
 * @example
 * docCommands('README.md', '```sh\nnpx strata roles --dir examples/roboco\n```\n');
 * // { run: [{ file: 'README.md', line: 2, command: 'npx strata roles --dir examples/roboco', status: 0, service: false }], skipped: [] }
 */
export function docCommands(
  file: string,
  markdown: string,
): { run: DocCommand[]; skipped: SkippedCommand[] } {
  const run: DocCommand[] = [];
  const skipped: SkippedCommand[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w+)?(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, lang = '', info = ''] = open;
    const words = info.trim().split(/\s+/);
    const body: Array<{ text: string; line: number }> = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++)
      body.push({ text: lines[j]!.slice(indent!.length), line: j + 1 });
    i = j;
    const shell = SHELL.includes(lang);
    if (!shell && lang !== 'text') continue;
    const commands: Array<{ command: string; line: number; output?: string[] }> = shell
      ? shellCommands(body)
      : promptCommands(body);
    for (const c of commands) {
      const at = { file, line: c.line, command: c.command };
      if (words.includes('no-run')) skipped.push({ ...at, why: 'no-run' });
      else if (PLACEHOLDER.test(c.command)) skipped.push({ ...at, why: 'placeholder' });
      else {
        const out: DocCommand = { ...at, status: exitStatus(c.command), service: words.includes('service') };
        if (c.output) out.output = c.output;
        run.push(out);
      }
    }
  }
  return { run, skipped };
}

/** Whether printed output matches what a doc shows (`…` at a line's end: any rest). */
export function outputMatches(shown: readonly string[], printed: string): boolean {
  const text = printed.replace(/\n$/, '');
  const got = text === '' ? [] : text.split('\n');
  const want = [...shown];
  while (want.length > 0 && want.at(-1) === '') want.pop();
  if (got.length !== want.length) return false;
  return want.every((w, k) => (w.endsWith(' …') ? got[k]!.startsWith(w.slice(0, -2)) : got[k] === w));
}

// --- internal ---

const SHELL = ['sh', 'bash', 'shell', 'console'];
/** `<your-pack>`, `<held version>`: a value the reader fills in. */
const PLACEHOLDER = /<[a-z][a-z0-9 _-]*>/i;

function exitStatus(command: string): number {
  const m = /#.*?\bexit (\d+)\b/.exec(command);
  return m ? Number(m[1]) : 0;
}

function shellCommands(
  body: Array<{ text: string; line: number }>,
): Array<{ command: string; line: number }> {
  const out: Array<{ command: string; line: number }> = [];
  let pending: { command: string; line: number } | undefined;
  for (const { text, line } of body) {
    if (pending) pending.command += `\n${text}`;
    else if (text.trim() === '' || text.trim().startsWith('#')) continue;
    else pending = { command: text, line };
    if (!text.endsWith('\\')) {
      out.push(pending);
      pending = undefined;
    }
  }
  if (pending) out.push(pending);
  return out;
}

function promptCommands(
  body: Array<{ text: string; line: number }>,
): Array<{ command: string; line: number; output: string[] }> {
  const out: Array<{ command: string; line: number; output: string[] }> = [];
  for (const { text, line } of body) {
    if (text.startsWith('$ ')) out.push({ command: text.slice(2), line, output: [] });
    else out.at(-1)?.output.push(text);
  }
  return out;
}
