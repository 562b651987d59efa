// Pure helpers of the inspector page: formatting, colours, byte slices. No DOM here.
// Diagnostic lines come from the core's own formatter (diagnostic-format.js) and each
// layer's wording from the service: neither is copied here.

/** 1234567 → "1,234,567". */
export function groupDigits(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A byte count for people: "812 B", "12,345 B". */
export function formatBytes(n) {
  return `${groupDigits(n)} B`;
}

/** The first 12 hex digits of a hash. */
export function shortHash(hash) {
  return typeof hash === 'string' ? hash.slice(0, 12) : '';
}

/**
 * A hue (0–359) per layer id, from the layer's place in the pipeline (golden-angle steps,
 * so neighbours differ). Every result of a pack lists the same pipeline, so a layer has
 * the same colour in every view.
 */
export function layerHues(layers) {
  const hues = new Map();
  for (const layer of layers) {
    if (!hues.has(layer.id)) hues.set(layer.id, Math.round((hues.size * 137.508 + 10) % 360));
  }
  return hues;
}

/** The text of each included layer: its [start, end) UTF-8 byte range of the prompt. */
export function layerTexts(result) {
  const bytes = new TextEncoder().encode(result.text);
  const decoder = new TextDecoder();
  const out = new Map();
  for (const layer of result.layers) {
    if (layer.included && typeof layer.start === 'number' && typeof layer.end === 'number') {
      out.set(layer.id, decoder.decode(bytes.subarray(layer.start, layer.end)));
    }
  }
  return out;
}

/** Layers whose text differs between two results (by sha256), or that came or went. */
export function changedLayers(before, after) {
  const old = new Map(before.layers.map((l) => [l.id, l]));
  const changed = new Set();
  for (const layer of after.layers) {
    const prev = old.get(layer.id);
    if (!prev) {
      if (layer.included) changed.add(layer.id);
    } else if (prev.included !== layer.included || (layer.included && prev.sha256 !== layer.sha256)) {
      changed.add(layer.id);
    }
  }
  return changed;
}

/** A name for the downloaded prompt: `strata-<who>-<sha8>.md`. */
export function downloadName(result) {
  const who = result.agent ?? result.role ?? 'default';
  return `strata-${who}-${shortHash(result.sha256).slice(0, 8)}.md`;
}
