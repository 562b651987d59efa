import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ComposeOutcome, type ComposeRequest, tryCompose } from '../../src/core/compose/compose.js';
import type { ComposeResult } from '../../src/core/compose/types.js';
import { RECORD_TEMPLATE_CHARS, RecordTemplates } from '../../src/engine/fast/record-template.js';
import { memPack } from '../helpers.js';

// The engine's `recordTemplates` accelerator fills a text layer made only of a role's
// fields from the record's flattened text (src/engine/fast/record-template.ts). Whatever
// the fields and inputs hold, the outcome must be the core's own (two passes: each field's
// inputs, then the template), byte for byte, provenance included; and the prompt, its
// errors and each field's and input's byte range what filling gives: CrewAI's in-turn fill
// for a crewai pack (a value holding another input's `{name}` is filled too), one pass for
// a pack of its own (a `{name}` that is no declared input stays as written).

const templates = new RecordTemplates();

/** A compose with the accelerator, checked against the core's own; its outcome. */
function fast(snapshot: Parameters<typeof tryCompose>[0], request: ComposeRequest): ComposeOutcome {
  const out = tryCompose(snapshot, request, { fillFields: (env, compiled) => templates.fill(env, compiled) });
  expect(JSON.stringify(out)).toBe(JSON.stringify(tryCompose(snapshot, request)));
  return out;
}

const FIELDS = ['role', 'goal', 'backstory'] as const;
const TEMPLATE = (f: Record<string, string>) =>
  `You are ${f.role}. ${f.backstory}\nYour personal goal is: ${f.goal}`;
/** CrewAI's `_build_prompt`: `{goal}`, then `{role}`, then `{backstory}` replaced over the text so far. */
const CREW_TEMPLATE = (f: Record<string, string>) =>
  'You are {role}. {backstory}\nYour personal goal is: {goal}'
    .split('{goal}')
    .join(f.goal)
    .split('{role}')
    .join(f.role)
    .split('{backstory}')
    .join(f.backstory);
/** Each field as it stands in {@link CREW_TEMPLATE}'s text. */
const BUILT = (f: Record<string, string>): Record<string, string> => ({
  role: f.role!.split('{backstory}').join(f.backstory),
  goal: f.goal!.split('{role}').join(f.role).split('{backstory}').join(f.backstory),
  backstory: f.backstory!,
});

/** CrewAI's interpolate_only over one value: one pass, or each `{name}` in turn when a value holds a brace. */
function crewFill(value: string, inputs: Record<string, string>): string | undefined {
  const names = [...value.matchAll(/\{([A-Za-z_][A-Za-z0-9_-]*)\}/g)].map((m) => m[1]!);
  if (names.some((n) => !Object.hasOwn(inputs, n))) return undefined;
  if (!names.some((n) => /[{}]/.test(inputs[n]!)))
    return value.replace(/\{([A-Za-z_][A-Za-z0-9_-]*)\}/g, (_, n) => inputs[n]!);
  let text = value;
  for (const n of names) text = text.split(`{${n}}`).join(inputs[n]!);
  return text;
}

/** One pass over one value: declared inputs filled, any other `{name}` kept. */
function onePass(
  value: string,
  inputs: Record<string, string>,
  declared: readonly string[],
): string | undefined {
  let missing = false;
  const text = value.replace(/\{([A-Za-z_][A-Za-z0-9_-]*)\}/g, (all, n: string) => {
    if (!declared.includes(n)) return all;
    if (!Object.hasOwn(inputs, n)) missing = true;
    return inputs[n] ?? '';
  });
  return missing ? undefined : text;
}

/** A YAML double-quoted scalar of any text. */
const quoted = (text: string) => JSON.stringify(text);

// Mostly placeholders, so that fields hold several and inputs hold each other's.
const piece = fc.oneof(
  { arbitrary: fc.constantFrom('{a}', '{b}', '{other}', ' '), weight: 4 },
  { arbitrary: fc.constantFrom('{', '}', 'é', '𝄞', '\t', 'Analyst', '{{a}}'), weight: 2 },
  { arbitrary: fc.string({ maxLength: 6 }), weight: 1 },
);
const value = fc.array(piece, { maxLength: 6 }).map((p) => p.join(''));
const inputValue = fc.oneof(
  { arbitrary: fc.constantFrom('{b}', '{a}', 'x{b}y', '}', 'x{', '{role}', '{backstory}{goal}'), weight: 2 },
  { arbitrary: fc.constantFrom('Energy', '', ' ', '𝄞'), weight: 2 },
  { arbitrary: fc.string({ maxLength: 5 }), weight: 1 },
);
const inputs = fc.oneof(
  { arbitrary: fc.record({ a: inputValue, b: inputValue }), weight: 3 },
  { arbitrary: fc.record({ a: inputValue, b: inputValue }, { requiredKeys: [] }), weight: 1 },
);

/** Each field's range of the text holds its filled value (cut by the layer's trim at the end). */
function expectFieldRanges(
  result: ComposeResult,
  filled: Record<string, string>,
  vars: Record<string, string>,
): void {
  const layer = result.layers.find((l) => l.kind === 'text' && l.included)!;
  const bytes = Buffer.from(result.text);
  for (const segment of layer.segments ?? []) {
    const text = bytes.subarray(segment.start, segment.end).toString();
    if (segment.kind !== 'field') continue;
    const whole = filled[segment.name!]!;
    expect(whole.startsWith(text)).toBe(true);
    for (const input of segment.inputs ?? [])
      expect(vars[input.name!]!.startsWith(bytes.subarray(input.start, input.end).toString())).toBe(true);
  }
}

describe('a template of role fields filled from the flattened record', () => {
  it('crewai: the prompt and its errors are what CrewAI fills, every time', () => {
    fc.assert(
      fc.property(
        fc.tuple(value, value, value),
        inputs,
        fc.boolean(),
        ([role, goal, backstory], vars, twice) => {
          const record = { role, goal, backstory };
          const yaml = `writer:\n${FIELDS.map((f) => `  ${f}: ${quoted(record[f])}`).join('\n')}\n`;
          const snapshot = memPack({ 'agents.yaml': yaml }).snapshot!;
          const filled: Record<string, string> = {};
          let missing = false;
          for (const f of FIELDS) {
            const text = crewFill(record[f], vars);
            if (text === undefined) missing = true;
            else filled[f] = text;
          }
          // The second compose meets the record's kept flat template.
          for (const _ of twice ? [0, 1] : [0]) {
            const out = fast(snapshot, { role: 'writer', vars });
            if (missing) {
              expect(out.ok ? [] : out.diagnostics.map((d) => d.code)).toContain('MISSING_INPUT');
              continue;
            }
            const want = CREW_TEMPLATE(filled).trimEnd();
            if (want.trim() === '') {
              expect(out.ok).toBe(false);
              continue;
            }
            expect(out.ok && out.result.text).toBe(want);
            if (out.ok) expectFieldRanges(out.result, BUILT(filled), vars);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a pack of its own: declared inputs filled in one pass, others kept as written', () => {
    fc.assert(
      fc.property(fc.tuple(value, value, value), inputs, ([role, goal, backstory], vars) => {
        const record = { role, goal, backstory };
        const snapshot = memPack({
          'strata.yaml': [
            'extends: roboco',
            'input_syntax: "{name}"',
            'inputs:',
            '  a: { description: A }',
            '  b: { description: B }',
            'layers:',
            '  - id: persona',
            '    after: base',
            `    text: ${quoted(TEMPLATE({ role: '{{role.role}}', goal: '{{role.goal}}', backstory: '{{role.backstory}}' }))}`,
            '    trim: end',
            '',
          ].join('\n'),
          'base.md': 'Base.\n',
          'roles.yaml': `roles:\n  dev:\n${FIELDS.map((f) => `    ${f}: ${quoted(record[f])}`).join('\n')}\n`,
        }).snapshot!;
        const filled: Record<string, string> = {};
        let missing = false;
        for (const f of FIELDS) {
          const text = onePass(record[f], vars, ['a', 'b']);
          if (text === undefined) missing = true;
          else filled[f] = text;
        }
        const out = fast(snapshot, { role: 'dev', vars });
        if (missing) {
          expect(out.ok ? [] : out.diagnostics.map((d) => d.code)).toContain('MISSING_INPUT');
          return;
        }
        const persona = TEMPLATE(filled).trimEnd();
        expect(out.ok && out.result.text).toBe(
          persona.trim() === '' ? 'Base.' : `Base.\n\n---\n\n${persona}`,
        );
        if (out.ok) expectFieldRanges(out.result, filled, vars);
      }),
      { numRuns: 300 },
    );
  });

  it('a field that is a number or missing, and a prompt over the limit, are said as before', () => {
    const pack = (fields: string, max?: number) =>
      memPack(
        {
          'strata.yaml':
            'extends: roboco\ninput_syntax: "{name}"\ninputs:\n  a: { description: A }\nlayers:\n  - id: persona\n    after: base\n    text: "I am {{role.role}}: {{role.goal}}."\n',
          'base.md': 'Base.\n',
          'roles.yaml': `roles:\n  dev:\n${fields}`,
        },
        max === undefined ? {} : { maxPromptBytes: max },
      ).snapshot!;
    const number = fast(pack('    role: 42\n    goal: "{a}"\n'), { role: 'dev', vars: { a: 'x' } });
    expect(number.ok && number.result.text).toBe('Base.\n\n---\n\nI am 42: x.');
    const none = fast(pack('    role: Dev\n'), { role: 'dev', vars: { a: 'x' } });
    expect(none.ok ? none.result.diagnostics.map((d) => d.code) : ['failed']).toEqual(['LAYER_MISSING']);
    const large = fast(pack('    role: Dev\n    goal: "{a}{a}{a}"\n', 200), {
      role: 'dev',
      vars: { a: 'y'.repeat(100) },
    });
    expect(large.ok ? [] : large.diagnostics.map((d) => d.code)).toEqual(['PROMPT_TOO_LARGE']);
  });

  it('keeps at most 4 Mi characters of flattened records per pack version; the rest fill in two passes', () => {
    const long = 'b'.repeat(RECORD_TEMPLATE_CHARS / 2);
    const yaml = ['a1', 'a2', 'a3']
      .map((id) => `${id}:\n  role: ${id} on {topic}\n  goal: Goal {topic}.\n  backstory: ${long}\n`)
      .join('');
    const snapshot = memPack({ 'agents.yaml': yaml }).snapshot!;
    const mine = new RecordTemplates();
    for (const id of ['a1', 'a2', 'a3']) {
      const out = tryCompose(
        snapshot,
        { role: id, vars: { topic: 'AI' } },
        { fillFields: (env, compiled) => mine.fill(env, compiled) },
      );
      expect(out.ok && out.result.text).toBe(`You are ${id} on AI. ${long}\nYour personal goal is: Goal AI.`);
    }
    // Two records kept (the second crossed the bound), the third not.
    expect(mine.charsKept(snapshot)).toBeGreaterThanOrEqual(RECORD_TEMPLATE_CHARS);
    expect(mine.charsKept(snapshot)).toBeLessThan(RECORD_TEMPLATE_CHARS + 200);
  });
});
