import { createRequire } from 'node:module';

// The `yaml` package is loaded at its first use, not with the core: most of a pack's YAML
// is read by a caller's faster reader (the engine's), and the shipped presets come
// already read, so a one-shot command over such a pack never loads its 72 files. It ships
// CommonJS, so `require` loads it synchronously; Node's module cache keeps the one copy.

/** The `yaml` package (loaded on the first call; the same module every call). */
export function yamlPackage(): typeof import('yaml') {
  return require('yaml');
}

// --- internal ---

const require = createRequire(import.meta.url);
