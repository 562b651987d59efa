import { describe, expect, it } from 'vitest';
import { memoryStore } from './helpers.js';

const PACK = {
  'base.md': 'Base.',
  'roles/writer.md': 'Writer.',
  'roles/critic.md': 'Critic.',
  'teams/blue.md': 'Blue.',
  'identities/w1.md': 'I am w1.',
  'fleet.yaml': 'agents:\n  - { id: w1, role: writer, team: blue }\n  - { id: c1, role: critic }\n',
};

describe('SnapshotStore with the guard', () => {
  it('holds a degrading version once per version, accepts only the version named, and swaps text edits', async () => {
    const mem = memoryStore(PACK);
    const events: string[] = [];
    mem.store.subscribe((e) => events.push(e.type === 'attempt' ? `attempt:${e.outcome.outcome}` : e.type));
    await mem.store.reload('initial');
    const good = mem.store.state!.snapshot.version;

    mem.files.delete('base.md');
    const held = await mem.store.reload('watch');
    expect(held).toMatchObject({ outcome: 'held', version: good, degradation: { layers: ['base'] } });
    expect(held.diagnostics.map((d) => d.code)).toEqual(['LAYER_LOST', 'LAYER_LOST']);
    expect(await mem.store.reload('poll')).toMatchObject({ outcome: 'held', held: held.held });
    expect(await mem.store.reload('manual', { accept: 'ffff' })).toMatchObject({ outcome: 'held' });
    expect(mem.store.state!.snapshot.version).toBe(good);
    expect(mem.store.held).toMatchObject({ version: held.held, trigger: 'watch' });

    const accepted = await mem.store.reload('manual', { accept: held.held! });
    expect(accepted).toMatchObject({ outcome: 'swapped', version: held.held, accepted: true });
    expect(mem.store.held).toBeNull();

    mem.set('roles/writer.md', 'Writer, reworded.');
    expect(await mem.store.reload('watch')).toMatchObject({ outcome: 'swapped' });
    expect(events).toEqual([
      'reload',
      'attempt:swapped',
      'held',
      'attempt:held',
      'attempt:held',
      'attempt:held',
      'reload',
      'attempt:swapped',
      'reload',
      'attempt:swapped',
    ]);
  });
});
