import type { Command, Option } from 'commander';
import { UsageError } from './io.js';

/**
 * Makes every command of the program refuse an option given twice, as the HTTP API
 * refuses a repeated query parameter: without this, commander keeps the last value and
 * drops the first unsaid. A repeatable option (one that gathers its values into a list,
 * like `--set`) stays repeatable, but one of `KEY=VALUE` pairs may not name the same
 * KEY twice. The refusal is a usage error (exit 2) naming the option.
 *
 * @example
 * refuseRepeatedOptions(program); // `compose --role a --role b` → error USAGE: --role is given twice …
 */
export function refuseRepeatedOptions(program: Command): void {
  for (const cmd of [program, ...program.commands]) {
    for (const option of cmd.options) guard(cmd, option);
  }
}

// --- internal ---

function guard(cmd: Command, option: Option): void {
  if (option.long === '--version' || option.long === '--help') return;
  const repeatable = Array.isArray(option.defaultValue) || option.variadic;
  const pairs = repeatable && /=/.test(option.flags);
  // `run` builds a fresh program for every parse, so what was seen needs no reset.
  const seen: Array<string | undefined> = [];
  cmd.on(`option:${option.name()}`, (value?: string) => {
    const flag = option.long ?? option.short ?? option.name();
    if (pairs && typeof value === 'string') {
      const key = value.includes('=') ? value.slice(0, value.indexOf('=')) : undefined;
      const earlier = key ? seen.find((v) => v?.slice(0, v.indexOf('=')) === key) : undefined;
      if (earlier !== undefined)
        throw new UsageError(
          `${flag} gives ${JSON.stringify(key)} twice (${JSON.stringify(earlier)}, then ${JSON.stringify(value)}); give each name once`,
        );
    } else if (!repeatable && seen.length > 0) {
      const values =
        typeof value === 'string' && typeof seen[0] === 'string'
          ? ` (${JSON.stringify(seen[0])}, then ${JSON.stringify(value)})`
          : '';
      throw new UsageError(`${flag} is given twice${values}; give it once`);
    }
    seen.push(value);
  });
}
