import type { Manifest } from '../pack/manifest.js';
import { type Diagnostic, warning } from '../text/diagnostics.js';

// A request's `ambient` text goes into the layers that read it (`input: ambient`). A pack
// without one (most foreign layouts, many packs of its own) would compose the request as
// if it had none: the caller is told, not served a prompt missing the text it sent.

/**
 * AMBIENT_UNUSED when a request gives `ambient` text and no layer of the pack (nor any of
 * its variants) reads it; undefined otherwise (a layer that reads it but is left out for
 * this request says why in its own result).
 *
 * @example
 * ambientUnused(snapshot.manifest, { role: 'arbiter', ambient: 'Friday release.' });
 */
export function ambientUnused(
  manifest: Pick<Manifest, 'layers'>,
  request: { ambient?: string },
): Diagnostic | undefined {
  if (request.ambient === undefined) return undefined;
  for (const layer of manifest.layers) {
    if (layer.source?.kind === 'input') return undefined;
    for (const variant of layer.variants ?? []) if (variant.source.kind === 'input') return undefined;
  }
  return warning(
    'AMBIENT_UNUSED',
    `the request's ambient text is in no layer: no layer of the pack reads it (a layer with \`input: ambient\`), so the prompt is composed without it`,
  );
}
