// The agent view: the composed prompt as a stack of labelled bands, one per included
// layer, the layers left out and why, the full text, and the compare tab.
// Each layer's status and source wording comes from the service (`layer.explain`), the
// same words `strata explain` prints.
import { renderCompare } from './compare-view.js';
import { formatDiagnostic } from './diagnostic-format.js';
import { h, keepFocus, replace } from './dom.js';
import { downloadName, formatBytes, groupDigits, layerHues, layerTexts, shortHash } from './format.js';

const TABS = [
  ['layers', 'Layers'],
  ['text', 'Full text'],
  ['compare', 'Compare'],
];

/**
 * Draws the agent view into `main`. `view` = { state, meta, result, error, changed,
 * compare, update, toast }.
 */
export function renderAgent(main, view) {
  const next = focusNext;
  focusNext = undefined;
  keepFocus(main, () => draw(main, view), next);
}

/**
 * Tokens of a result or layer, when the service reports them: a layer's `tokens` is a
 * number, a result's is a summary `{ total, tokenizer, estimate, budget? }`.
 */
export function tokensOf(x) {
  const t = x?.tokens;
  if (typeof t === 'number') return t;
  if (t && typeof t === 'object' && typeof t.total === 'number') return t.total;
  return undefined;
}

/** A readable error answer, with its diagnostics one a line. */
export function errorBox(error) {
  const lines = error.diagnostics?.length
    ? error.diagnostics.map(formatDiagnostic)
    : [`${error.code}: ${error.message}`];
  return h(
    'div',
    { class: 'error-box', role: 'alert' },
    h('strong', null, 'Cannot compose'),
    h('pre', null, lines.join('\n')),
  );
}

// --- internal ---

/** The tab to focus after the next redraw (arrow keys on the tab list). */
let focusNext;

function draw(main, view) {
  const { result, error } = view;
  if (!result) {
    replace(
      main,
      error ? errorBox(error) : h('p', { class: 'muted' }, 'Choose an agent, or a role and team.'),
    );
    main.dataset.sha = '';
    return;
  }
  main.dataset.sha = result.sha256;
  const panel = h('div', {
    id: `panel-${view.state.tab}`,
    role: 'tabpanel',
    'aria-labelledby': `tab-${view.state.tab}`,
  });
  if (view.state.tab === 'layers') fillLayers(panel, result, view.changed);
  else if (view.state.tab === 'text')
    panel.append(h('pre', { class: 'prompt', id: 'prompt-text', tabindex: '0' }, result.text));
  else renderCompare(panel, view);
  replace(main, error && errorBox(error), summary(result, view), strip(result), tabs(view), panel);
}

function summary(result, view) {
  const included = result.layers.filter((l) => l.included).length;
  const tokens = tokensOf(result);
  const who = result.agent ?? result.role ?? '(no role)';
  const sub = [result.agent && result.role, result.team].filter(Boolean).join(' · ');
  const overrides = Object.entries(view.state.settings).map(([k, v]) => `${k}=${v}`);
  return h(
    'section',
    { class: 'summary', 'aria-label': 'Prompt summary' },
    h('h2', { id: 'who-title' }, who, sub && h('span', { class: 'muted' }, ` ${sub}`)),
    h(
      'dl',
      { class: 'stats' },
      stat('layers', `${included} of ${result.layers.length}`),
      stat('size', formatBytes(result.bytes), 'size'),
      tokens !== undefined && stat('tokens', tokenText(result.tokens), 'tokens'),
      stat('sha256', h('code', { title: result.sha256 }, shortHash(result.sha256)), 'sha'),
      overrides.length > 0 && stat('settings', overrides.join(' ')),
    ),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', id: 'copy', onclick: () => copy(result.text, view.toast) },
        'Copy prompt',
      ),
      h('button', { type: 'button', id: 'download', onclick: () => download(result) }, 'Download'),
    ),
    result.fallback &&
      h('p', { class: 'note' }, 'No layer was included: the prompt is the pack’s fallback text.'),
    (result.diagnostics ?? []).map((d) => h('p', { class: `diag ${d.severity}` }, formatDiagnostic(d))),
  );
}

/** `4,873 (o200k_base, estimate) of 8,000: near` from a result's token summary. */
function tokenText(t) {
  const how = [t.tokenizer, t.estimate && 'estimate'].filter(Boolean).join(', ');
  const budget = t.budget
    ? ` of ${groupDigits(t.budget.max)}${t.budget.status === 'ok' ? '' : `: ${t.budget.status}`}`
    : '';
  return `${t.estimate ? '≈' : ''}${groupDigits(t.total)}${how ? ` (${how})` : ''}${budget}`;
}

function stat(label, value, id) {
  return h('div', id && { id: `stat-${id}` }, h('dt', null, label), h('dd', null, value));
}

/** A proportional bar of the included layers; each segment jumps to its band. */
function strip(result) {
  const hues = layerHues(result.layers);
  const layers = result.layers.filter((l) => l.included);
  const total = layers.reduce((n, l) => n + (l.bytes ?? 0), 0) || 1;
  return h(
    'nav',
    { class: 'strip', 'aria-label': 'Layers by size' },
    layers.map((l) =>
      h('a', {
        href: `#band-${l.id}`,
        class: 'seg',
        style: { '--hue': hues.get(l.id), width: `${((l.bytes ?? 0) / total) * 100}%` },
        title: `${l.id}: ${formatBytes(l.bytes ?? 0)}`,
        'aria-label': `${l.id}, ${formatBytes(l.bytes ?? 0)}`,
        onclick: (e) => {
          e.preventDefault();
          document.getElementById(`band-${l.id}`)?.scrollIntoView({ block: 'start' });
          document.getElementById(`band-${l.id}`)?.querySelector('summary')?.focus();
        },
      }),
    ),
  );
}

function tabs(view) {
  const select = (id) => view.update({ tab: id }, true);
  return h(
    'div',
    {
      class: 'tabs',
      role: 'tablist',
      'aria-label': 'Prompt views',
      onkeydown: (e) => {
        const i = TABS.findIndex(([id]) => id === view.state.tab);
        const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
        if (!step) return;
        e.preventDefault();
        const next = TABS[(i + step + TABS.length) % TABS.length][0];
        focusNext = `tab-${next}`;
        select(next);
      },
    },
    TABS.map(([id, label]) =>
      h(
        'button',
        {
          type: 'button',
          role: 'tab',
          id: `tab-${id}`,
          'aria-selected': String(view.state.tab === id),
          'aria-controls': `panel-${id}`,
          tabindex: view.state.tab === id ? '0' : '-1',
          onclick: () => select(id),
        },
        label,
      ),
    ),
  );
}

/**
 * A text template layer's pieces (the template's text, each role field with its file and
 * line, each setting and input), each with its byte range, as `strata explain` lists them.
 */
function segmentList(segments) {
  const item = (seg, nested) =>
    h(
      'li',
      { class: `segment ${seg.kind}`, dataset: { kind: seg.kind } },
      h('span', { class: 'what' }, seg.kind === 'template' ? 'template text' : `${seg.kind} ${seg.name}`),
      seg.source && h('span', { class: 'source' }, seg.line ? `${seg.source}:${seg.line}` : seg.source),
      h('span', { class: 'range', title: 'byte range in the prompt' }, `${seg.start}–${seg.end}`),
      nested,
    );
  return h(
    'ol',
    { class: 'segments', 'aria-label': 'Where each piece of the text comes from' },
    segments.map((seg) =>
      item(
        seg,
        seg.inputs &&
          h(
            'ol',
            { class: 'segments' },
            seg.inputs.map((input) => item(input)),
          ),
      ),
    ),
  );
}

function fillLayers(panel, result, changed) {
  const texts = layerTexts(result);
  const hues = layerHues(result.layers);
  const included = result.layers.filter((l) => l.included);
  const skipped = result.layers.filter((l) => !l.included);
  const bands = [];
  included.forEach((l, i) => {
    if (i > 0) bands.push(h('li', { class: 'sep', 'aria-hidden': 'true' }, 'separator'));
    const tokens = tokensOf(l);
    const isChanged = changed.has(l.id);
    bands.push(
      h(
        'li',
        {
          class: `band${isChanged ? ' changed' : ''}`,
          id: `band-${l.id}`,
          dataset: { layer: l.id },
          style: { '--hue': hues.get(l.id) },
        },
        h(
          'details',
          { open: true },
          h(
            'summary',
            null,
            h('span', { class: 'layer-id' }, l.id),
            h('span', { class: 'source' }, l.explain.source),
            h(
              'span',
              { class: 'facts' },
              h('span', { class: 'bytes' }, formatBytes(l.bytes ?? 0)),
              tokens !== undefined && h('span', { class: 'tokens' }, `${groupDigits(tokens)} tok`),
              l.budget &&
                l.budget.status !== 'ok' &&
                h('span', { class: 'tag hot' }, `${l.budget.status} budget ${groupDigits(l.budget.max)}`),
              h('span', { class: 'range', title: 'byte range in the prompt' }, `${l.start}–${l.end}`),
              l.variant !== undefined && h('span', { class: 'tag' }, `variant ${l.variant + 1}`),
              l.appended && h('span', { class: 'tag' }, 'appended'),
              isChanged && h('span', { class: 'tag hot' }, 'changed'),
            ),
          ),
          h('pre', { class: 'layer-text' }, texts.get(l.id) ?? ''),
          l.segments && segmentList(l.segments),
        ),
      ),
    );
  });
  const fold = (open) => {
    for (const d of panel.querySelectorAll('.band details')) d.open = open;
  };
  panel.append(
    h(
      'div',
      { class: 'band-tools' },
      h(
        'button',
        { type: 'button', class: 'ghost small', id: 'expand-all', onclick: () => fold(true) },
        'Expand all',
      ),
      h(
        'button',
        { type: 'button', class: 'ghost small', id: 'collapse-all', onclick: () => fold(false) },
        'Collapse all',
      ),
    ),
    h('ol', { class: 'bands', 'aria-label': 'Included layers, in order' }, bands),
    h('h3', null, `Not included (${skipped.length})`),
    skipped.length === 0
      ? h('p', { class: 'muted' }, 'Every layer of the pipeline is in the prompt.')
      : h(
          'ul',
          { class: 'skipped' },
          skipped.map((l) =>
            h(
              'li',
              {
                dataset: { layer: l.id, reason: l.reason ?? '' },
                class: changed.has(l.id) ? 'changed' : undefined,
              },
              h('code', null, l.id),
              h('span', { class: `reason ${l.reason}` }, l.explain.status),
              l.explain.source !== '-' && h('span', { class: 'source' }, l.explain.source),
            ),
          ),
        ),
  );
}

async function copy(text, toast) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = h('textarea', { style: { position: 'fixed', opacity: '0' } }, text);
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  toast('Prompt copied');
}

function download(result) {
  const url = URL.createObjectURL(new Blob([result.text], { type: 'text/markdown;charset=utf-8' }));
  const a = h('a', { href: url, download: downloadName(result) });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
