import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tryCompose } from '../../src/core/compose/compose.js';
import { loadPack } from '../../src/source/load.js';
import { expectGolden, ROOT } from '../helpers.js';

interface SpecCase {
  name: string;
  env?: Record<string, string>;
  request: Record<string, unknown>;
  expect: { golden?: string; layers?: Record<string, string>; error?: string };
}

for (const specFile of ['roboco.yaml', 'chorus.yaml']) {
  const spec = parse(readFileSync(join(ROOT, 'test', 'spec', specFile), 'utf8')) as {
    pack: string;
    cases: SpecCase[];
  };
  describe(`spec ${specFile}`, () => {
    it.each(spec.cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
      const { snapshot, diagnostics } = await loadPack(join(ROOT, spec.pack), { env: c.env ?? {} });
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const outcome = tryCompose(snapshot!, c.request);
      if (c.expect.error) {
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect(outcome.diagnostics.map((d) => d.code)).toEqual([c.expect.error]);
        return;
      }
      if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
      const { result } = outcome;
      if (c.expect.golden) expectGolden(c.expect.golden, result.text);
      for (const [id, status] of Object.entries(c.expect.layers ?? {})) {
        const layer = result.layers.find((l) => l.id === id);
        expect(layer, `layer ${id}`).toBeDefined();
        expect(layer!.included ? 'included' : layer!.reason, `layer ${id}`).toBe(status);
      }
      // Provenance: every included layer's byte range holds exactly its text.
      const bytes = Buffer.from(result.text, 'utf8');
      expect(result.bytes).toBe(bytes.length);
      for (const layer of result.layers.filter((l) => l.included)) {
        const slice = bytes.subarray(layer.start!, layer.end!).toString('utf8');
        expect(layer.sha256).toBe(createHash('sha256').update(slice).digest('hex'));
      }
    });
  });
}
