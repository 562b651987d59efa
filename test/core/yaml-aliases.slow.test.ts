import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/core/text/yaml.js';
import { crewWithDefaults } from './yaml-crews.js';

// What PyYAML (CrewAI's reader; Debian's python3-yaml) reads of a crew file, strata reads:
// the same value, every `<<: *defaults` merged.

function pyyaml(text: string): unknown {
  const script = 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))';
  return JSON.parse(execFileSync('python3', ['-c', script], { input: text, encoding: 'utf8' }));
}

describe('YAML aliases against PyYAML', () => {
  it.each([100, 1000])('a crew of %i agents merging one &defaults block reads as PyYAML reads it', (n) => {
    const text = crewWithDefaults(n);
    const ours = parseYaml(text, { file: 'agents.yaml' });
    expect(ours.diagnostics).toEqual([]);
    expect(ours.value).toEqual(pyyaml(text));
  });
});
