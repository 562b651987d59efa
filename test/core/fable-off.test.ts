import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { loadPackStrict } from '../../src/source/load.js';
import { EXAMPLES, tempDir } from '../helpers.js';

describe('fable_mode_enabled off', () => {
  it('gives every fleet member the same bytes as the pack with its doctrine files deleted', async () => {
    const withDoctrine = await loadPackStrict(join(EXAMPLES, 'roboco'), { env: {} });
    const dir = tempDir();
    cpSync(join(EXAMPLES, 'roboco'), dir, { recursive: true });
    rmSync(join(dir, 'doctrine'), { recursive: true });
    const without = await loadPackStrict(dir, { env: {} });
    expect(withDoctrine.fleet.length).toBeGreaterThanOrEqual(8);
    for (const agent of withDoctrine.fleet) {
      const off = compose(withDoctrine, { agent: agent.id, settings: { fable_mode_enabled: 'off' } });
      const deleted = compose(without, { agent: agent.id });
      expect(off.text, agent.id).toBe(deleted.text);
      // and turning it on does change the prompt, so the comparison means something
      const on = compose(withDoctrine, { agent: agent.id, settings: { fable_mode_enabled: 'on' } });
      expect(on.text, agent.id).not.toBe(off.text);
    }
  });
});
