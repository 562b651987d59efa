import type { ComposeResult, LayerResult, LayerSegment } from './compose.js';

// Readable forms of a result's provenance, shared by `strata explain` and others.

/** Why a layer is or is not in the text, in a few words. */
export function layerStatus(layer: LayerResult): string {
  if (layer.included) {
    const notes = [
      layer.variant !== undefined && `variant ${layer.variant + 1}`,
      layer.truncatedFrom !== undefined && `cut from ${layer.truncatedFrom} bytes`,
      layer.frontmatterRetried && 'frontmatter quoted',
    ].filter(Boolean);
    return notes.length > 0 ? `included (${notes.join(', ')})` : 'included';
  }
  switch (layer.reason) {
    case 'gated':
      return `gated: ${layer.gate}`;
    case 'no-value':
      return `no-value: {${layer.placeholder}}`;
    default:
      return layer.reason ?? 'skipped';
  }
}

/** A layer's wording in the explain table: its status and source cells. */
export interface LayerWording {
  /** Why the layer is or is not in the text ({@link layerStatus}). */
  status: string;
  /** Where its text comes from ({@link layerSource}). */
  source: string;
}

/** A layer with its explain wording. */
export type WordedLayer<L extends LayerResult> = L & { explain: LayerWording };

/**
 * A result whose layers each carry `explain`: the status and source wording `strata
 * explain` prints for them. The API answers with it, so the inspector (and any client)
 * shows the same words without a copy of these rules.
 *
 * @example
 * withLayerWording(compose(snapshot, { agent: 'ada' })).layers[9].explain;
 * // { status: 'no-value: {ambient}', source: 'request: ambient' }
 */
export function withLayerWording<R extends { layers: readonly LayerResult[] }>(
  result: R,
): Omit<R, 'layers'> & { layers: Array<WordedLayer<R['layers'][number]>> } {
  return {
    ...result,
    layers: result.layers.map((layer) => ({
      ...layer,
      explain: { status: layerStatus(layer), source: layerSource(layer) },
    })),
  };
}

/** Where a layer's text comes from, in a few words. */
export function layerSource(layer: LayerResult): string {
  switch (layer.kind) {
    case 'input':
      return 'request: ambient';
    case 'text':
      return layer.source ? `manifest template + ${layer.source} (${layer.field})` : 'manifest: inline text';
    case 'chain':
      return `chain of ${layer.parts?.length ?? 0} file${layer.parts?.length === 1 ? '' : 's'}${layer.chainRoot === undefined ? '' : ` from ${layer.chainRoot} (.git)`}`;
    case 'role_field':
      return layer.source ? `${layer.source} (${layer.field})` : `role field ${layer.field}`;
    default:
      return layer.source ?? '-';
  }
}

/** A result with token counts, as `withTokens` (src/tokens) gives it. */
export interface ExplainableResult extends ComposeResult {
  layers: Array<LayerResult & { tokens?: number }>;
  tokens: {
    total: number;
    tokenizer: string;
    estimate: boolean;
    family?: string;
    budget?: { max: number; status: string };
  };
}

/**
 * The explain table: one row per layer of the pipeline, included or not; with a tokens
 * column and total when the result carries token counts (`withTokens`).
 */
export function formatExplain(result: ComposeResult | ExplainableResult): string {
  const tokens = 'tokens' in result ? result.tokens : undefined;
  const who = [
    result.role && `role=${result.role}`,
    result.team && `team=${result.team}`,
    result.agent && `agent=${result.agent}`,
  ].filter(Boolean);
  const settings = Object.entries(result.settings).map(
    ([k, v]) =>
      `${k}=${escapeControls(String(v))}${result.settingSources[k] === 'default' ? '' : ` (${result.settingSources[k]})`}`,
  );
  const rows = result.layers.flatMap((l, i) => [
    [
      String(i + 1),
      l.id,
      layerStatus(l),
      layerSource(l),
      l.included ? String(l.bytes) : '',
      ...(tokens ? [l.included ? String((l as { tokens?: number }).tokens ?? '') : ''] : []),
      l.included ? `${l.start}-${l.end}` : '',
    ],
    ...(l.parts ?? []).map((p) => [
      '',
      '  ↳',
      p.included
        ? p.truncatedFrom !== undefined
          ? `included (cut from ${p.truncatedFrom} bytes)`
          : 'included'
        : p.reason === 'budget'
          ? 'no budget left'
          : (p.reason ?? 'skipped'),
      p.source,
      p.included ? String(p.bytes) : '',
      ...(tokens ? [''] : []),
      p.included ? `${p.start}-${p.end}` : '',
    ]),
    ...(l.included ? (l.segments ?? []) : []).flatMap((seg) => [
      segmentRow(seg, '  ↳', tokens !== undefined),
      ...(seg.inputs ?? []).map((input) => segmentRow(input, '    ↳', tokens !== undefined)),
    ]),
  ]);
  const tokenNote = tokens
    ? `; ${tokens.total} tokens (${tokens.tokenizer}${tokens.estimate ? `, an estimate for ${tokens.family ?? 'this model'}` : ''})${tokens.budget ? `; budget ${tokens.budget.max}: ${tokens.budget.status}` : ''}`
    : '';
  const inputs = result.inputs
    ? [
        `inputs ${
          Object.entries(result.inputs)
            .map(
              ([k, v]) =>
                `${k}=${escapeControls(String(v))}${result.inputSources?.[k] === 'default' ? '' : ' (request)'}`,
            )
            .join(' ') || '(none)'
        }`,
      ]
    : [];
  const lines = [
    `version ${result.version}  ${who.join(' ') || '(no role)'}`,
    `settings ${settings.join(' ') || '(none)'}`,
    ...inputs,
    '',
    ...table([['#', 'layer', 'status', 'source', 'bytes', ...(tokens ? ['tokens'] : []), 'range'], ...rows]),
    '',
    `${result.layers.filter((l) => l.included).length} of ${result.layers.length} layers included; ${result.bytes} bytes${tokenNote}; sha256 ${result.sha256}${result.fallback ? '; fallback text used' : ''}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** An explain row of a text template layer's piece: what it is, where it comes from, its range. */
function segmentRow(seg: LayerSegment, arrow: string, tokens: boolean): string[] {
  const what = seg.kind === 'template' ? 'template text' : `${seg.kind} ${seg.name}`;
  const from =
    seg.kind === 'field'
      ? seg.source === undefined
        ? 'role record'
        : `${seg.source}${seg.line === undefined ? '' : `:${seg.line}`}`
      : seg.kind === 'template'
        ? 'manifest'
        : seg.kind === 'setting'
          ? 'settings'
          : 'request';
  return ['', arrow, what, from, String(seg.bytes), ...(tokens ? [''] : []), `${seg.start}-${seg.end}`];
}

/** Left-aligned text columns (numbers right-aligned), two spaces apart. */
export function table(cells: string[][]): string[] {
  // A file name or value holding a newline cannot split a row or forge the next one.
  const rows = cells.map((row) => row.map(escapeControls));
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length);
  }
  return rows.map((row) =>
    row
      .map((cell, i) =>
        /^\d+$/.test(cell) || /^\d+-\d+$/.test(cell) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!),
      )
      .join('  ')
      .trimEnd(),
  );
}

/**
 * Control characters (a newline in a file name or a value) written as escapes (`\n`), and
 * invisible or direction-changing ones (U+200B, U+202E) as `\u200b`, as diagnostics write
 * paths: a cell can neither split its row nor turn it around.
 */
function escapeControls(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROL_ALL, (ch) => {
    const code = ch.codePointAt(0)!;
    if (code < 0x20) return JSON.stringify(ch).slice(1, -1);
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu;
