import { describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';

const COMMANDS = [
  'compose',
  'explain',
  'roles',
  'fleet',
  'serve',
  'validate',
  'diff',
  'snapshot',
  'generate',
  'config',
  'export',
  'bundle',
];

/** Every option a command's help lists: its long flag, whether it takes a value, whether it repeats. */
async function optionsOf(
  command: string,
): Promise<Array<{ flag: string; value: boolean; repeatable: boolean }>> {
  const help = (await cli([command, '--help'])).stdout;
  const found: Array<{ flag: string; value: boolean; repeatable: boolean }> = [];
  const lines = help.split('\n');
  for (const [i, line] of lines.entries()) {
    const m = /^ {2}(?:-\w, )?(--[a-z][a-z-]*)( <[^>]+>)?/.exec(line);
    if (!m?.[1] || m[1] === '--help') continue;
    // The description may wrap onto following indented lines.
    let text = line;
    for (let j = i + 1; j < lines.length && /^ {6,}\S/.test(lines[j] ?? ''); j++) text += ` ${lines[j]}`;
    found.push({ flag: m[1], value: m[2] !== undefined, repeatable: /repeatable/.test(text) });
  }
  return found;
}

describe('a CLI option given twice', () => {
  it.each(COMMANDS)(
    'strata %s refuses every single-valued option given twice (exit 2, naming it)',
    async (command) => {
      const options = await optionsOf(command);
      expect(options.length).toBeGreaterThan(0);
      for (const { flag, value, repeatable } of options.filter((o) => !o.repeatable)) {
        const once = value ? [flag, 'x'] : [flag];
        const r = await cli([command, ...once, ...(value ? [flag, 'y'] : [flag])]);
        expect({ flag, repeatable, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
          flag,
          repeatable,
          code: 2,
          stdout: '',
          stderr: value
            ? `error USAGE: ${flag} is given twice ("x", then "y"); give it once\n`
            : `error USAGE: ${flag} is given twice; give it once\n`,
        });
      }
    },
  );

  it.each([
    ['compose', '--set'],
    ['compose', '--var'],
    ['explain', '--set'],
    ['serve', '--set'],
    ['validate', '--var'],
    ['diff', '--set'],
    ['diff', '--base-set'],
    ['diff', '--var'],
    ['snapshot', '--set'],
    ['snapshot', '--var'],
  ])('strata %s %s refuses the same name twice and takes two names', async (command, flag) => {
    const r = await cli([command, flag, 'k=a', flag, 'k=b']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error USAGE: ${flag} gives "k" twice ("k=a", then "k=b"); give each name once\n`,
    });
    // Two names stay two settings: the error is a later one (no pack), not the repeat.
    const two = await cli([command, flag, 'k=a', flag, 'j=b'], {}, '/');
    expect(two.stderr).not.toMatch(/twice/);
  });

  it('the same name twice is refused whichever spelling gives it', async () => {
    const r = await cli(['compose', '--set=k=a', '--set', 'k=b']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error USAGE: --set gives "k" twice/);
    const role = await cli(['compose', '--role=a', '--role', 'a']);
    expect(role.stderr).toBe('error USAGE: --role is given twice ("a", then "a"); give it once\n');
  });
});
