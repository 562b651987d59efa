import type { Manifest } from '../pack/manifest.js';
import { applyOverrides, type ResolvedSettings, resolveEnvSettings } from '../pack/settings.js';
import type { Diagnostic } from '../text/diagnostics.js';
import type { BuildInput } from './snapshot-types.js';

/** The settings a build resolves, and their diagnostics. */
export interface SettingsResult {
  settings: ResolvedSettings;
  diagnostics: Diagnostic[];
}

/**
 * Settings from the manifest's defaults, env, then the operator's values (a build's step
 * 3). The values are frozen: composes hand them out in their results.
 */
export function resolveSettings(input: BuildInput, manifest: Manifest): SettingsResult {
  const env = resolveEnvSettings(manifest.settings, input.env ?? {});
  const over = applyOverrides(manifest.settings, env.settings, input.operatorSettings, 'operator', true);
  Object.freeze(over.settings.values);
  Object.freeze(over.settings.sources);
  return { settings: over.settings, diagnostics: [...env.diagnostics, ...over.diagnostics] };
}
