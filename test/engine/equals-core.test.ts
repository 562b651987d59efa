import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSnapshot as coreBuild, type Snapshot } from '../../src/core/build/snapshot.js';
import {
  type ComposeOutcome,
  type ComposeRequest,
  tryCompose as coreCompose,
} from '../../src/core/compose/compose.js';
import { type Accelerator, createEngine, type Engine } from '../../src/engine/engine.js';
import { LAYOUTS } from '../../src/layouts/registry.js';
import { examplePack } from './pack-compare-harness.js';

// The engine is the core made fast: with every accelerator, and with each one turned off,
// it builds the same snapshots and composes the same outcomes, byte for byte, as the core.

const PACKS = ['roboco', 'chorus', 'crewai', 'claude-agents', 'agents-md'] as const;
const ACCELERATORS: Accelerator[] = ['memo', 'incremental', 'parseMemo', 'fastYaml', 'recordTemplates'];

const engines: Array<[string, Engine]> = [
  ['every accelerator', createEngine()],
  ...ACCELERATORS.map((a): [string, Engine] => [
    `without ${a}`,
    createEngine({ accelerators: { [a]: false } }),
  ]),
];

function bytesOf(files: Map<string, string>): Map<string, Uint8Array> {
  return new Map([...files].map(([p, t]) => [p, new TextEncoder().encode(t)]));
}

/** What a snapshot means, for comparing two builds of one pack. */
function view(s: Snapshot | undefined) {
  if (!s) return undefined;
  return {
    version: s.version,
    preset: s.preset,
    manifest: s.manifest,
    files: [...s.files].map(([p, f]) => [p, f.sha256, f.meta, f.prompt, f.bodyOffset]),
    roles: [...s.roles],
    fleet: s.fleet,
    settings: s.settings,
    warnings: s.warnings,
  };
}

/** An outcome as every caller sees it: JSON (which reads each lazy hash), and the text. */
function seen(o: ComposeOutcome): string {
  return JSON.stringify(o);
}

/** Requests over a snapshot's own names, names a letter off, settings and inputs. */
function requests(s: Snapshot): fc.Arbitrary<ComposeRequest> {
  const roles = [...s.roles.keys()];
  const agents = s.fleet.map((a) => a.id);
  const teams = [...new Set(s.fleet.map((a) => a.team).filter((t): t is string => t !== undefined))];
  const name = (known: string[]) =>
    fc.oneof(
      fc.constant(undefined),
      ...(known.length > 0 ? [fc.constantFrom(...known), fc.constantFrom(...known).map((n) => `${n}x`)] : []),
      fc.constantFrom('nobody', 'Ada Lovelace', '..'),
    );
  const setting = fc.dictionary(
    fc.constantFrom(...s.manifest.settings.map((d) => d.name), 'unknown_knob'),
    fc.oneof(fc.constantFrom('on', 'off', 'full', 'lite', 7, true), fc.string({ maxLength: 6 })),
    { maxKeys: 2 },
  );
  const vars = fc.dictionary(
    fc.constantFrom(...s.manifest.inputs.map((i) => i.name), 'topic', 'cwd', 'sector'),
    fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('frontend/app', '{topic}', 'backend'),
      fc.integer(),
    ),
    { maxKeys: 2 },
  );
  return fc
    .record(
      {
        role: name(roles),
        agent: name(agents),
        team: name(teams),
        settings: setting,
        vars,
        ambient: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 12 })),
      },
      { requiredKeys: [] },
    )
    .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as ComposeRequest);
}

describe.each(PACKS)('the engine equals the core on examples/%s', (pack) => {
  const files = examplePack(pack);
  const core = coreBuild({ files: bytesOf(files), env: {}, layouts: LAYOUTS });

  it.each(engines)('%s: the same snapshot, and the same outcome for every request', (_, engine) => {
    const built = engine.buildSnapshot({ files: bytesOf(files), env: {} });
    expect(view(built.snapshot)).toEqual(view(core.snapshot));
    expect(built.diagnostics).toEqual(core.diagnostics);
    const snapshot = built.snapshot!;
    fc.assert(
      fc.property(requests(snapshot), (request) => {
        const fast = engine.tryCompose(snapshot, request);
        const again = engine.tryCompose(snapshot, request);
        expect(seen(fast)).toBe(seen(coreCompose(core.snapshot!, request)));
        expect(seen(again)).toBe(seen(fast));
      }),
      { numRuns: 60 },
    );
  });
});
