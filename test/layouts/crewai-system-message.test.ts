import { describe, expect, it } from 'vitest';
import { strictOutcome, tryCompose } from '../../src/core/compose/compose.js';
import { createApp } from '../../src/server/app.js';
import { cli, codes, memPack, tempDir, writeFiles } from '../helpers.js';
import { checked } from '../server/contract.js';
import { memoryStore } from '../server/helpers.js';

/**
 * CrewAI sends an agent a system message only when the agent sets neither
 * `system_template` nor `prompt_template` and leaves `use_system_prompt` on
 * (`Prompts.task_execution`); otherwise the role-playing text goes into the user message.
 * A compose of such an agent says so: NO_SYSTEM_MESSAGE, where the field is written.
 */
const AGENTS = [
  'plain:',
  '  role: Plain',
  '  goal: G',
  '  backstory: B',
  'templated:',
  '  role: Templated',
  '  goal: G',
  '  backstory: B',
  '  system_template: "<|system|>{{ .System }}"',
  '  prompt_template: "<|user|>{{ .Prompt }}"',
  'switched_off:',
  '  role: Switched off',
  '  goal: G',
  '  backstory: B',
  '  use_system_prompt: false',
  'said_no:',
  '  role: Said no',
  '  goal: G',
  '  backstory: B',
  '  use_system_prompt: no',
  'switched_on:',
  '  role: Switched on',
  '  goal: G',
  '  backstory: B',
  '  use_system_prompt: true',
  'empty_template:',
  '  role: Empty',
  '  goal: G',
  '  backstory: B',
  '  system_template: ""',
  '  prompt_template:',
  'quoted_false:',
  '  role: Quoted',
  '  goal: G',
  '  backstory: B',
  '  use_system_prompt: " False "',
  'quoted_true:',
  '  role: Quoted true',
  '  goal: G',
  '  backstory: B',
  '  use_system_prompt: "yes"',
  'null_switch:',
  '  role: Unset',
  '  goal: G',
  '  backstory: B',
  '  use_system_prompt:',
  '',
].join('\n');

const pack = () => memPack({ 'config/agents.yaml': AGENTS }).snapshot!;

describe('crewai: agents CrewAI sends no system message', () => {
  it('an agent with a template or the system message off is NO_SYSTEM_MESSAGE at the field, its text unchanged', () => {
    const snapshot = pack();
    const outcome = (role: string) => {
      const o = tryCompose(snapshot, { role });
      if (!o.ok) throw new Error(JSON.stringify(o.diagnostics));
      return o.result;
    };
    const said = (role: string) => outcome(role).diagnostics.filter((d) => d.code === 'NO_SYSTEM_MESSAGE');

    expect(said('templated')).toEqual([
      {
        code: 'NO_SYSTEM_MESSAGE',
        severity: 'warning',
        message:
          "role templated sets system_template and prompt_template (line 10): with these the agent's framework sends it no system message, and puts the text composed here into its user message instead",
        file: 'config/agents.yaml',
        line: 9,
      },
    ]);
    expect(said('switched_off')).toEqual([
      {
        code: 'NO_SYSTEM_MESSAGE',
        severity: 'warning',
        message:
          "role switched_off sets use_system_prompt: false: with it the agent's framework sends it no system message, and puts the text composed here into its user message instead",
        file: 'config/agents.yaml',
        line: 15,
      },
    ]);
    // PyYAML reads `no` as false; a field written without a value is None.
    expect(said('said_no').map((d) => [d.line, d.message.split(':').slice(0, 2).join(':')])).toEqual([
      [20, 'role said_no sets use_system_prompt: false'],
    ]);
    expect(said('null_switch').map((d) => [d.line, d.message.split(':').slice(0, 2).join(':')])).toEqual([
      [46, 'role null_switch sets use_system_prompt: null'],
    ]);
    // A text pydantic reads as false for a boolean field.
    expect(said('quoted_false').map((d) => [d.line, d.message.split(': with')[0]])).toEqual([
      [36, 'role quoted_false sets use_system_prompt: " False "'],
    ]);
    // A system message: neither template (an empty one is none), and the switch on or unset.
    for (const role of ['plain', 'switched_on', 'empty_template', 'quoted_true'])
      expect(said(role)).toEqual([]);
    // The text is the role-playing slice all the same.
    expect(outcome('templated').text).toBe('You are Templated. B\nYour personal goal is: G');
  });

  it('strict mode refuses such an agent; validate names it; the service answers 422 under strict', async () => {
    const strict = strictOutcome(tryCompose(pack(), { role: 'switched_off' }));
    expect(strict.ok === false && strict.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['NO_SYSTEM_MESSAGE', 'error'],
    ]);

    const dir = tempDir();
    writeFiles(dir, { 'config/agents.yaml': AGENTS });
    const validate = await cli(['validate', '--dir', dir]);
    expect(validate.code).toBe(0);
    const lines = validate.stdout.split('\n').filter((l) => l.includes('NO_SYSTEM_MESSAGE'));
    expect(lines.map((l) => l.slice(0, l.indexOf(' role')))).toEqual([
      'warning NO_SYSTEM_MESSAGE: config/agents.yaml:9:',
      'warning NO_SYSTEM_MESSAGE: config/agents.yaml:15:',
      'warning NO_SYSTEM_MESSAGE: config/agents.yaml:20:',
      'warning NO_SYSTEM_MESSAGE: config/agents.yaml:36:',
      'warning NO_SYSTEM_MESSAGE: config/agents.yaml:46:',
    ]);
    const composed = await cli(['compose', '--dir', dir, '--role', 'switched_off', '--strict']);
    expect(composed.code).toBe(1);
    expect(composed.stdout).toBe('');
    expect(composed.stderr).toContain(
      'error NO_SYSTEM_MESSAGE: config/agents.yaml:15: role switched_off sets',
    );

    const { store } = memoryStore({ 'config/agents.yaml': AGENTS });
    await store.reload('initial');
    const { app } = checked(createApp({ store, heartbeatMs: 0, tokenBudgetMs: 120_000 }));
    const ok = await app.request('/api/prompts/switched_off');
    expect(ok.status).toBe(200);
    expect(codes((await ok.json()) as { diagnostics: Array<{ code: string }> })).toEqual([
      'NO_SYSTEM_MESSAGE',
    ]);
    const refused = await app.request('/api/prompts/switched_off?strict=true');
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('NO_SYSTEM_MESSAGE');
    const plain = await app.request('/api/prompts/plain?strict=true');
    expect(plain.status).toBe(200);
  });

  it('registry.no_system_message is checked as a manifest key', () => {
    const bad = memPack({
      'strata.yaml': 'extends: crewai\nregistry:\n  no_system_message:\n    when_set: 5\n    when_off: [x]\n',
      'config/agents.yaml': AGENTS,
    });
    expect(codes(bad).filter((c) => c !== 'INPUTS_NEEDED')).toEqual(
      expect.arrayContaining(['BAD_MANIFEST', 'UNKNOWN_KEY']),
    );
    // A pack of its own may name its own fields.
    const own = memPack({
      'strata.yaml':
        'extends: crewai\nregistry:\n  no_system_message:\n    when_set: [chat_template]\n    when_false: []\n',
      'config/agents.yaml':
        'a:\n  role: R\n  goal: G\n  backstory: B\n  chat_template: x\n  use_system_prompt: false\n',
    }).snapshot!;
    const outcome = tryCompose(own, { role: 'a' });
    expect(outcome.ok && outcome.result.diagnostics.map((d) => d.message.slice(0, 30))).toEqual([
      'role a sets chat_template: wit',
    ]);
  });
});
