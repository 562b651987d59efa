import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSnapshot as coreBuild } from '../../src/core/build/snapshot.js';
import { compose, defaultEngine, engineOf } from '../../src/engine/default-engine.js';
import { createEngine } from '../../src/engine/engine.js';
import { LAYOUTS } from '../../src/layouts/registry.js';
import { loadPackStrict } from '../../src/source/load.js';
import { readPackDir } from '../../src/source/read-dir.js';

const ROBOCO = join(resolve(import.meta.dirname, '../..'), 'examples', 'roboco');

describe('the engine of a snapshot', () => {
  it("is the engine that built it: the plain functions keep a snapshot's work in its engine's cache", async () => {
    const own = createEngine({ cacheBytes: 8 * 1024 * 1024 });
    const snapshot = await loadPackStrict(ROBOCO, { env: {}, engine: own });
    expect(engineOf(snapshot)).toBe(own);
    const before = defaultEngine.cacheUsage().entries;
    const { text } = compose(snapshot, { agent: snapshot.fleet[0]!.id });
    expect(text.length).toBeGreaterThan(0);
    expect(own.cacheUsage().entries).toBeGreaterThan(0);
    expect(defaultEngine.cacheUsage().entries).toBe(before);
  });

  it('is the default engine for a snapshot the core built alone', async () => {
    const { files } = await readPackDir(ROBOCO);
    const { snapshot } = coreBuild({ files, env: {}, layouts: LAYOUTS });
    expect(snapshot).toBeDefined();
    expect(engineOf(snapshot!)).toBe(defaultEngine);
  });

  it('two engines compose a pack to the same bytes', async () => {
    const a = await loadPackStrict(ROBOCO, { env: {}, engine: createEngine() });
    const b = await loadPackStrict(ROBOCO, { env: {}, engine: createEngine({ cacheBytes: 0 }) });
    for (const agent of a.fleet)
      expect(compose(b, { agent: agent.id }).text).toBe(compose(a, { agent: agent.id }).text);
  });
});
