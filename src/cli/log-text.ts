import { isAbsolute, relative } from 'node:path';

// `strata serve --log-format text` (the default on a terminal): the service's JSON log
// lines, as pino writes them, turned into lines a person reads. The first says where to
// look: `strata serving examples/roboco (9 roles, 8 agents, version …) — inspector: http://127.0.0.1:7411/`.

/** The log formats of `strata serve`. */
export const LOG_FORMATS = ['json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * A writer of pino's JSON lines that writes them as text to `write`: one line per record
 * (`HH:MM:SS msg key=value …`; a warning or error says its level first; diagnostics one a
 * line below). `cwd` shortens the pack folder in the `listening` line. A chunk that is
 * not JSON is written as it is.
 *
 * @example
 * const write = textLogWriter((s) => process.stdout.write(s), process.cwd());
 * write('{"level":30,"time":"2026-01-01T12:00:00.000Z","msg":"reload recovered","version":"ab12"}\n');
 * // 12:00:00 reload recovered version=ab12
 */
export function textLogWriter(write: (text: string) => void, cwd: string): (chunk: string) => void {
  return (chunk) => {
    let out = '';
    for (const line of chunk.split('\n')) {
      if (line === '') continue;
      out += textLine(line, cwd);
    }
    if (out !== '') write(out);
  };
}

// --- internal ---

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMITTED = new Set(['level', 'time', 'service', 'pid', 'hostname', 'msg']);

function textLine(line: string, cwd: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `${line}\n`;
  }
  if (record.msg === 'listening') return `${servingLine(record, cwd)}\n`;
  const time = typeof record.time === 'string' ? record.time.slice(11, 19) : '';
  const level = LEVELS[record.level as number];
  if (record.msg === 'request') {
    const { method, path, status, ms } = record;
    return `${time} ${method} ${path} ${status} ${ms}ms\n`;
  }
  const fields: string[] = [];
  let below = '';
  for (const [key, value] of Object.entries(record)) {
    if (OMITTED.has(key) || value === undefined || value === null) continue;
    if (key === 'diagnostics' && Array.isArray(value)) {
      for (const d of value) below += `    ${String(d)}\n`;
      continue;
    }
    if (key === 'changed' && typeof value === 'object') {
      fields.push(`changed=${changedNames(value as { agents?: string[]; roles?: string[] })}`);
      continue;
    }
    if (key === 'err' && typeof value === 'object') {
      fields.push(`error=${JSON.stringify((value as { message?: unknown }).message ?? value)}`);
      continue;
    }
    fields.push(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  const head = [time, level, String(record.msg ?? ''), ...fields].filter((p) => p !== undefined && p !== '');
  return `${head.join(' ')}\n${below}`;
}

/** `strata serving DIR (N roles, M agents, version V) — inspector: URL/`. */
function servingLine(record: Record<string, unknown>, cwd: string): string {
  const dir = typeof record.dir === 'string' ? shown(record.dir, cwd) : '(no pack folder)';
  const roles = Number(record.roles ?? 0);
  const agents = Number(record.agents ?? 0);
  const counts = [`${roles} ${roles === 1 ? 'role' : 'roles'}`];
  if (agents > 0) counts.push(`${agents} ${agents === 1 ? 'agent' : 'agents'}`);
  counts.push(`version ${String(record.version ?? '-')}`);
  return `strata serving ${dir} (${counts.join(', ')}) — inspector: ${String(record.url)}/`;
}

/** The agents (else the roles) a reload changed: at most five names, then how many more. */
function changedNames(changed: { agents?: string[]; roles?: string[] }): string {
  const names = changed.agents?.length ? changed.agents : (changed.roles ?? []);
  if (names.length === 0) return '(none)';
  const more = names.length > 5 ? ` +${names.length - 5} more` : '';
  return `${names.slice(0, 5).join(',')}${more}`;
}

function shown(dir: string, cwd: string): string {
  const rel = relative(cwd, dir);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? dir : rel;
}
