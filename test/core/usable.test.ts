import { describe, expect, it } from 'vitest';
import { packProblems, packProblemsSliced } from '../../src/core/compose/usable.js';
import { createEngine } from '../../src/engine/engine.js';
import { okPack } from '../helpers.js';

// The reasons `serve --strict` gives for not being ready, worked out at once or in steps.

const PACK = {
  'base.md': 'Base.',
  'roles/writer.md': 'Writer.',
  'roles/critic.md': 'Critic.',
  'identities/w1.md': 'I am w1.',
  'fleet.yaml': 'agents:\n  - { id: w1, role: writer, team: blue }\n  - { id: c1, role: critic }\n',
};

describe('packProblems', () => {
  it('names each member with its problem, in fleet order', () => {
    const problems = packProblems(okPack(PACK));
    expect(problems.map((d) => `${d.code} ${d.message}`)).toEqual([
      'LAYER_MISSING w1: layer team is left out: teams/blue.md is missing',
      'LAYER_MISSING c1: layer identity is left out: identities/c1.md is missing',
    ]);
  });

  it('in steps gives the same problems, pausing between members when the slice is used up', async () => {
    const snapshot = okPack(PACK);
    let pauses = 0;
    const always = { due: true, pause: async () => void pauses++ };
    const sliced = await packProblemsSliced(snapshot, always);
    expect(pauses).toBe(2);
    expect(sliced).toEqual(packProblems(okPack(PACK)));
  });

  it("an engine's are worked out once per snapshot: the readiness answer after a reload finds them done", async () => {
    const engine = createEngine();
    const snapshot = okPack(PACK);
    const sliced = await engine.packProblemsSliced(snapshot, { due: true, pause: async () => undefined });
    expect(sliced).toEqual(packProblems(snapshot));
    expect(engine.packProblems(snapshot)).toBe(sliced);
  });

  it('is empty for a pack whose members compose cleanly', async () => {
    const clean = okPack({ ...PACK, 'teams/blue.md': 'Blue.', 'identities/c1.md': 'I am c1.' });
    expect(await packProblemsSliced(clean, { due: false, pause: async () => undefined })).toEqual([]);
  });
});
