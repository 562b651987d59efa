import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, EXAMPLES } from '../helpers.js';

// `strata diff` and `strata snapshot` take the request inputs a pack declares (`--var`),
// so a CrewAI pack, whose agents need run inputs, can be diffed and locked.

const CREWAI = join(EXAMPLES, 'crewai');
const VARS = ['--var', 'sector=Energy', '--var', 'quarter=Q3', '--var', 'audience=the board'];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-vars-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('request inputs for diff and snapshot', () => {
  it('snapshot without the inputs fails naming the missing input; with them it writes and checks a lock', async () => {
    const lock = join(dir, 'crewai.lock.json');
    const missing = await cli(['snapshot', '--dir', CREWAI, '--out', lock]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error COMPOSE_FAILED: .*MISSING_INPUT input sector/m);

    const written = await cli(['snapshot', '--dir', CREWAI, '--out', lock, ...VARS]);
    expect(written.code).toBe(0);
    const members = JSON.parse(await readFile(lock, 'utf8')).members as Array<{ key: string; text: string }>;
    expect(members.map((m) => m.key)).toEqual([
      'role:fact_checker',
      'role:market_analyst',
      'role:report_writer',
    ]);
    expect(members.find((m) => m.key === 'role:market_analyst')!.text).toMatch(
      // A folded scalar keeps its trailing newline, as CrewAI's prompt does.
      /^You are Energy Market Analyst\n\. As the analyst the desk trusts with Energy/,
    );

    expect(JSON.parse(await readFile(lock, 'utf8')).vars).toEqual({
      audience: 'the board',
      quarter: 'Q3',
      sector: 'Energy',
    });
    expect((await cli(['snapshot', '--dir', CREWAI, '--check', lock, ...VARS])).code).toBe(0);
    // Without --var, the check composes with the inputs the lock records, and says so.
    const recorded = await cli(['snapshot', '--dir', CREWAI, '--check', lock]);
    expect(recorded.code).toBe(0);
    expect(recorded.stderr).toBe(
      "note: composing with the lock's inputs: audience=the board, quarter=Q3, sector=Energy\n",
    );
    const drift = await cli([
      'snapshot',
      '--dir',
      CREWAI,
      '--check',
      lock,
      ...VARS.slice(0, 4),
      '--var',
      'audience=investors',
    ]);
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain(
      'note: inputs differ from the lock: audience=investors (lock: the board)\n',
    );
  });

  it('a lock written without inputs has no vars field', async () => {
    const lock = join(dir, 'roboco.lock.json');
    expect((await cli(['snapshot', '--dir', join(EXAMPLES, 'roboco'), '--out', lock])).code).toBe(0);
    expect(JSON.parse(await readFile(lock, 'utf8'))).not.toHaveProperty('vars');
  });

  it('diff composes both sides with the inputs', async () => {
    const same = await cli(['diff', '--dir', CREWAI, '--base-dir', CREWAI, '--stat', ...VARS]);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('0 of 3 members changed');
    const missing = await cli(['diff', '--dir', CREWAI, '--base-dir', CREWAI, '--stat']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/MISSING_INPUT/);
  });
});
