import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PROMPT_BYTES } from '../../src/core/compose/prompt-limit.js';
import { tryCompose } from '../../src/index.js';
import { stablePackLoader } from '../../src/reload/read.js';
import { SnapshotStore } from '../../src/reload/store.js';
import { createApp } from '../../src/server/app.js';
import { loadPack, loadPackStrict } from '../../src/source/load.js';
import { cli, EXAMPLES, memPack, tempDir, writeFiles } from '../helpers.js';
import { appFor } from '../server/helpers.js';

// A request's inputs cannot make a prompt grow without end: CrewAI fills a record value's
// placeholders in turn, so a value holding the `{name}` of a later placeholder is filled
// again, and a 64 KB request used to make a 115 MB prompt. Every prompt (and every value
// filled into one) is bounded in bytes, and the bound is checked as the text grows.

const CREWAI = join(EXAMPLES, 'crewai');

/** 64 KB of vars whose in-turn fill would make a prompt of about 115 MB. */
const AMPLIFIED = { sector: '{quarter}'.repeat(3600), quarter: 'x'.repeat(32000) };

/** Four inputs each holding many of the next one's placeholder: a 7.4 KB query string. */
function nested(): string {
  const vars = {
    sector: '{quarter}'.repeat(200),
    quarter: '{audience}'.repeat(200),
    audience: '{region}'.repeat(200),
    region: 'x'.repeat(1200),
  };
  return Object.entries(vars)
    .map(([k, v]) => `var.${k}=${encodeURIComponent(v)}`)
    .join('&');
}

describe('request inputs that amplify', () => {
  it('the library: PROMPT_TOO_LARGE, a failed compose, not a 115 MB prompt', async () => {
    const snapshot = await loadPackStrict(CREWAI, { env: {} });
    const outcome = tryCompose(snapshot, { role: 'market_analyst', vars: AMPLIFIED });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.diagnostics.map((d) => d.code)).toEqual(['PROMPT_TOO_LARGE']);
    expect(!outcome.ok && outcome.diagnostics[0]!.message).toContain(
      `more than ${DEFAULT_MAX_PROMPT_BYTES} bytes`,
    );
  });

  it('the bound is exact: a prompt of the limit composes, one byte more does not', async () => {
    const files = {
      'strata.yaml':
        'extends: chorus\ninputs:\n  word: { type: string }\nlayers:\n  - id: a\n    text: "{{word}}"\n',
    };
    const limit = 1000;
    const pack = memPack(files, { maxPromptBytes: limit }).snapshot!;
    expect(pack.maxPromptBytes).toBe(limit);
    const at = tryCompose(pack, { vars: { word: 'é'.repeat(limit / 2) } });
    expect(at.ok && at.result.bytes).toBe(limit);
    const over = tryCompose(pack, { vars: { word: `${'é'.repeat(limit / 2 - 1)}xyz` } });
    expect(!over.ok && over.diagnostics.map((d) => d.code)).toEqual(['PROMPT_TOO_LARGE']);
  });

  it('the layers of a pack count too: a prompt joined past the limit fails at the layer that passes it', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'base.md': 'b'.repeat(600), 'roles/dev.md': 'r'.repeat(600) });
    const { snapshot } = await loadPack(dir, { env: {}, maxPromptBytes: 1000 });
    const outcome = tryCompose(snapshot!, { role: 'dev' });
    expect(!outcome.ok && outcome.diagnostics.map((d) => [d.code, d.message])).toEqual([
      [
        'PROMPT_TOO_LARGE',
        'the prompt, at layer role, would be more than 1000 bytes, the limit of a composed prompt (--max-prompt-bytes, maxPromptBytes); nothing was composed',
      ],
    ]);
  });

  it('HTTP: a 64 KB body is 422 PROMPT_TOO_LARGE, and so is a GET whose var.* fill past the limit', async () => {
    const { app } = await appFor(CREWAI);
    const post = await app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'market_analyst', vars: AMPLIFIED }),
    });
    expect(post.status).toBe(422);
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe('PROMPT_TOO_LARGE');
    // A 7.4 KB query whose fill makes about 400 KB: within the default, over a service's 100 KB.
    const query = nested();
    expect(query.length).toBeGreaterThan(7000);
    expect((await app.request(`/api/prompts/market_analyst?${query}`)).status).toBe(200);
    const store = new SnapshotStore(stablePackLoader({ dir: CREWAI, env: {}, maxPromptBytes: 100_000 }));
    await store.reload('initial');
    const bounded = createApp({ store, heartbeatMs: 0 }).app;
    const get = await bounded.request(`/api/prompts/market_analyst?${query}`);
    expect(get.status).toBe(422);
    expect(((await get.json()) as { error: { code: string } }).error.code).toBe('PROMPT_TOO_LARGE');
  });

  it('the CLI: exit 1 with the code, nothing printed; --max-prompt-bytes sets the bound', async () => {
    const vars = ['--var', `sector=${'{quarter}'.repeat(150)}`, '--var', `quarter=${'x'.repeat(1350)}`];
    const big = await cli(['compose', '--dir', CREWAI, '--role', 'market_analyst', ...vars]);
    expect(big.code).toBe(0);
    expect(big.stdout.length).toBeGreaterThan(200_000);
    const bounded = await cli([
      'compose',
      '--dir',
      CREWAI,
      '--role',
      'market_analyst',
      '--max-prompt-bytes',
      '100000',
      ...vars,
    ]);
    expect(bounded.code).toBe(1);
    expect(bounded.stdout).toBe('');
    expect(bounded.stderr).toMatch(/^error PROMPT_TOO_LARGE: layer role_playing: .* more than 100000 bytes/m);
    const bad = await cli(['compose', '--dir', CREWAI, '--max-prompt-bytes', '0']);
    expect(bad.code).toBe(2);
  });
});

// A message naming the known roles (settings, agents) names a dozen and how many there
// are: a fleet of N agents with unknown roles in a pack of N roles once made N messages of
// N names each (8,000 of each: 1.6 GB of diagnostics from a 400 KB pack).
describe('messages listing the known names', () => {
  const many = Array.from({ length: 40 }, (_, i) => `role${String(i).padStart(2, '0')}`);
  const registry = `roles:\n${many.map((r) => `  ${r}: { system_prompt: ${r} }\n`).join('')}`;
  const twelve = `${many.slice(0, 12).join(', ')}, … (40 in all)`;

  it('an agent of the fleet with an unknown role, and a compose of one, name a dozen known roles', () => {
    const result = memPack({
      'roles.yaml': registry,
      'fleet.yaml': 'agents:\n  - { id: a, role: nobody }\n',
      'defaults.md': 'D\n',
    });
    expect(result.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['UNKNOWN_ROLE', `agent a has unknown role nobody; known roles: ${twelve}`],
    ]);
    const composed = tryCompose(memPack({ 'roles.yaml': registry }).snapshot!, { role: 'nobody' });
    expect(composed.ok ? [] : composed.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['UNKNOWN_ROLE', `unknown role "nobody"; known roles: ${twelve}`],
    ]);
  });

  it('an unknown fleet role says its closest roles, worked out for the first 64 names only', () => {
    // 70 agents, each with its own misspelt role (role07 as rol07, then as roel07): the
    // closest role of each of the first 64 names is said, the rest are said without.
    const typo = (i: number) => `${i < 40 ? 'rol' : 'roel'}${String(i % 40).padStart(2, '0')}`;
    const agents = Array.from({ length: 70 }, (_, i) => `  - { id: a${i}, role: ${typo(i)} }\n`);
    const result = memPack({
      'roles.yaml': registry,
      'fleet.yaml': `agents:\n${agents.join('')}`,
      'defaults.md': 'D\n',
    });
    const messages = result.diagnostics.map((d) => d.message);
    expect(messages).toHaveLength(70);
    expect(messages[0]).toBe(
      `agent a0 has unknown role rol00; did you mean "role00", "role01" or "role02"?; known roles: ${twelve}`,
    );
    expect(messages[63]).toBe(
      `agent a63 has unknown role roel23; did you mean "role23", "role03" or "role13"?; known roles: ${twelve}`,
    );
    expect(messages[64]).toBe(`agent a64 has unknown role roel24; known roles: ${twelve}`);
    // One misspelling many agents share is worked out once and said for each.
    const same = memPack({
      'roles.yaml': registry,
      'fleet.yaml': 'agents:\n  - { id: a, role: rol07 }\n  - { id: b, role: rol07 }\n',
      'defaults.md': 'D\n',
    });
    expect(same.diagnostics.map((d) => d.message)).toEqual([
      `agent a has unknown role rol07; did you mean "role07", "role00" or "role01"?; known roles: ${twelve}`,
      `agent b has unknown role rol07; did you mean "role07", "role00" or "role01"?; known roles: ${twelve}`,
    ]);
  });

  it('a team member outside a fleet of many is UNKNOWN_AGENT naming a dozen of them', async () => {
    const fleet = `agents:\n${many.map((r) => `  - { id: ${r}, role: ${r} }\n`).join('')}`;
    const dir = tempDir();
    writeFiles(dir, { 'roles.yaml': registry, 'fleet.yaml': fleet, 'defaults.md': 'D\n' });
    const { app } = await appFor(dir);
    const res = await app.request('/api/teams/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ members: [{ agent: 'nobody' }] }),
    });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('UNKNOWN_AGENT');
    expect(body.error.message).toContain(`(known agents: ${twelve})`);
  });
});

// A request naming unknown settings or inputs got one diagnostic for each, listing every
// known setting (or input) and its closest ones: with 400 settings declared, a 58 KB body of
// 7,000 unknown names made a 115 MB error answer and held the event loop 4 s. A dozen are
// named (the known ones a dozen too); the rest are counted in one more diagnostic.
describe('unknown settings and inputs of a request', () => {
  const names = (kind: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${kind}_${String(i).padStart(2, '0')}`);
  const settings = names('setting', 20);
  const inputs = names('input', 20);
  const declared = (list: string[]) => list.map((n) => `  ${n}: { type: string, default: x }\n`).join('');
  const files = {
    'strata.yaml': `extends: chorus\nsettings:\n${declared(settings)}inputs:\n${declared(inputs)}`,
    'defaults.md': 'D\n',
  };
  const twelve = (list: readonly string[]) => `${list.slice(0, 12).join(', ')}, … (${list.length} in all)`;
  const unknown = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`nope${i}`, 'v']));

  it.each([
    // chorus declares a setting of its own.
    ['settings', 'UNKNOWN_SETTING', 'setting', ['default_instructions_path', ...settings]],
    ['vars', 'UNKNOWN_INPUT', 'input', inputs],
  ] as const)(
    'HTTP: 30 unknown %s are 400 %s naming a dozen, then one counting the rest',
    async (field, code, word, known) => {
      const dir = tempDir();
      writeFiles(dir, files);
      const { app } = await appFor(dir);
      const res = await app.request('/api/compose', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ [field]: unknown(30) }),
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as {
        error: { code: string; message: string; diagnostics: Array<{ code: string; message: string }> };
      };
      expect(body.error.code).toBe(code);
      expect(body.error.message).toBe(`unknown ${word} "nope0"; known ${word}s: ${twelve(known)}`);
      expect(body.error.diagnostics.map((d) => d.code)).toEqual(Array(13).fill(code));
      expect(body.error.diagnostics[11]!.message).toBe(
        `unknown ${word} "nope11"; known ${word}s: ${twelve(known)}`,
      );
      expect(body.error.diagnostics[12]!.message).toBe(
        `18 more unknown ${word}s (30 in all); known ${word}s: ${twelve(known)}`,
      );
    },
  );

  it('a value outside an enum of many names a dozen of them', async () => {
    const values = names('v', 30);
    const pack = memPack({
      'strata.yaml': `extends: chorus\nsettings:\n  mode: { type: enum, values: [${values.join(', ')}], default: v_00 }\ninputs:\n  level: { type: enum, values: [${values.join(', ')}] }\n`,
      'defaults.md': 'D\n',
    }).snapshot!;
    const shown = `${values.slice(0, 12).join('|')}|… (30 in all)`;
    const said = (request: Parameters<typeof tryCompose>[1]) => {
      const outcome = tryCompose(pack, request);
      return outcome.ok ? [] : outcome.diagnostics.map((d) => d.message);
    };
    expect(said({ settings: { mode: 'nope' } })).toEqual([
      `setting mode: value "nope" is invalid; accepted values: ${shown}`,
    ]);
    expect(said({ vars: { level: 'nope' } })).toEqual([
      `input level: value "nope" is invalid; accepted values: ${shown}`,
    ]);
    expect(said({ settings: { mode: 'v_29' }, vars: { level: 'v_29' } })).toEqual([]);
  });

  it('the library: 7,000 unknown settings, or inputs, make 13 diagnostics', async () => {
    const pack = memPack(files).snapshot!;
    const said = (request: Parameters<typeof tryCompose>[1]) => {
      const outcome = tryCompose(pack, request);
      return outcome.ok ? [] : outcome.diagnostics.map((d) => d.message);
    };
    const bySettings = said({ settings: unknown(7000) });
    expect(bySettings).toHaveLength(13);
    expect(bySettings[12]).toBe(
      `6988 more unknown settings (7000 in all); known settings: ${twelve(['default_instructions_path', ...settings])}`,
    );
    const byVars = said({ vars: unknown(7000) });
    expect(byVars).toHaveLength(13);
    expect(byVars[12]).toBe(`6988 more unknown inputs (7000 in all); known inputs: ${twelve(inputs)}`);
  });
});

// Role `extends` is worked out once per role, without a call stack per link: a chain of
// 20,000 roles overflowed the stack (INTERNAL), one of 2,000 took minutes (each role walked
// its whole chain, finding the position of each link in the file), and each role of a
// cycle said the whole cycle again.
describe('role extends chains', () => {
  it('a chain of 20,000 roles loads, each role with the fields of the first', () => {
    const n = 20_000;
    const lines = ['roles:', '  r0: { system_prompt: base, description: first }'];
    for (let i = 1; i < n; i++)
      lines.push(`  r${i}: { extends: r${i - 1}${i % 2 ? `, description: d${i}` : ''} }`);
    const result = memPack({ 'roles.yaml': `${lines.join('\n')}\n` }, { preset: 'chorus' });
    expect(result.diagnostics).toEqual([]);
    const roles = result.snapshot!.roles;
    expect(roles.size).toBe(n);
    expect(roles.get(`r${n - 1}`)!.fields).toMatchObject({ system_prompt: 'base', description: `d${n - 1}` });
    expect(roles.get(`r${n - 2}`)!.fields).toMatchObject({ system_prompt: 'base', description: `d${n - 3}` });
  });

  it('a cycle is said once, at its first role; a role extending into it or an unknown role once', () => {
    const result = memPack(
      {
        'roles.yaml':
          'roles:\n  a: { extends: b }\n  b: { extends: c }\n  c: { extends: a }\n  d: { extends: b }\n  e: { extends: ghost }\n  f: { extends: e }\n',
      },
      { preset: 'chorus' },
    );
    expect(result.diagnostics.map((d) => [d.code, d.line, d.col, d.message])).toEqual([
      ['ROLE_EXTENDS_CYCLE', 2, 17, 'role extends cycle: a -> b -> c -> a'],
      ['UNKNOWN_ROLE', 6, 17, 'role e extends unknown role "ghost"'],
    ]);
  });
});
