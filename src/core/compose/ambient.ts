import type { LayerDef, Manifest } from '../pack/manifest.js';
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
  if (request.ambient === undefined || ambientLayer(manifest) !== undefined) return undefined;
  return warning(
    'AMBIENT_UNUSED',
    `the request's ambient text is in no layer: no layer of the pack reads it (a layer with \`input: ambient\`), so the prompt is composed without it`,
  );
}

/** The first layer of the pack that reads a request's ambient text (itself or in a variant). */
export function ambientLayer(manifest: Pick<Manifest, 'layers'>): LayerDef | undefined {
  return manifest.layers.find(
    (l) => l.source?.kind === 'input' || (l.variants ?? []).some((v) => v.source.kind === 'input'),
  );
}
