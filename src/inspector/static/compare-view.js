// The compare tab: the current prompt against the same agent under other settings,
// another agent, or the previous pack version, as a highlighted unified or split diff.
import { diffHunks, sideBySide, unifiedText } from './diff-model.js';
import { h } from './dom.js';
import { changedLayers, formatBytes, shortHash } from './format.js';
import { renderSettings } from './side-panel.js';

const MODES = [
  ['settings', 'Other settings'],
  ['agent', 'Another agent'],
  ['previous', 'Previous pack version'],
];

/** Draws the compare tab into `panel`. `view.compare` = { label, result?, error? }. */
export function renderCompare(panel, view) {
  const { state, compare } = view;
  panel.append(controls(view));
  if (!compare) return;
  if (compare.error) {
    panel.append(h('p', { class: 'note', id: 'compare-note' }, compare.error));
    return;
  }
  const current = { label: view.label, result: view.result };
  const other = { label: compare.label, result: compare.result };
  // Read as a change: the previous version → the current prompt; the current prompt →
  // the other settings or agent. Swap turns it round.
  const forward = state.mode === 'previous' ? [other, current] : [current, other];
  const [from, to] = state.swap ? [forward[1], forward[0]] : forward;
  const Diff = globalThis.Diff;
  if (!Diff) {
    panel.append(h('p', { class: 'note' }, 'The diff library (/vendor/diff.js) did not load.'));
    return;
  }
  const diff = diffHunks(Diff, from.result.text, to.result.text);
  const layers = [...changedLayers(from.result, to.result)];
  const head = h(
    'div',
    { class: 'diff-head', id: 'diff-summary' },
    h(
      'p',
      null,
      h('span', { class: 'del-text' }, `− ${from.label}`),
      ` (${formatBytes(from.result.bytes)}, ${shortHash(from.result.sha256)})`,
    ),
    h(
      'p',
      null,
      h('span', { class: 'add-text' }, `+ ${to.label}`),
      ` (${formatBytes(to.result.bytes)}, ${shortHash(to.result.sha256)})`,
    ),
    diff.hunks.length === 0
      ? h('p', { class: 'same' }, 'No difference: the two prompts are byte-identical.')
      : h(
          'p',
          null,
          h('span', { class: 'add-text' }, `+${diff.added}`),
          ' ',
          h('span', { class: 'del-text' }, `−${diff.removed}`),
          ' lines',
          layers.length > 0 && ` · layers that differ: ${layers.join(', ')}`,
        ),
    diff.hunks.length > 0 &&
      h(
        'button',
        {
          type: 'button',
          class: 'ghost small',
          id: 'copy-diff',
          onclick: async () => {
            await navigator.clipboard?.writeText(unifiedText(diff, from.label, to.label));
            view.toast('Diff copied');
          },
        },
        'Copy diff',
      ),
  );
  panel.append(head);
  if (diff.hunks.length > 0) panel.append(state.diff === 'split' ? splitTable(diff) : unifiedTable(diff));
}

// --- internal ---

function controls(view) {
  const { state, meta, update } = view;
  const mode = h(
    'fieldset',
    { class: 'modes' },
    h('legend', null, 'Compare with'),
    MODES.map(([id, label]) =>
      h(
        'label',
        null,
        h('input', {
          type: 'radio',
          name: 'cmp',
          id: `cmp-${id}`,
          value: id,
          checked: state.mode === id,
          onchange: () => update({ mode: id }, true),
        }),
        ` ${label}`,
      ),
    ),
  );
  let detail = null;
  if (state.mode === 'settings') {
    detail = h('div', { class: 'other-settings', 'aria-label': 'Settings of the other prompt' });
    renderSettings(detail, {
      defs: meta.settings,
      values: state.otherSettings,
      prefix: 'with',
      onChange: (name, value) => {
        const next = { ...state.otherSettings };
        if (value === undefined) delete next[name];
        else next[name] = value;
        update({ otherSettings: next });
      },
      onReset: () => update({ otherSettings: {} }),
    });
  } else if (state.mode === 'agent') {
    detail = h(
      'div',
      { class: 'field' },
      h('label', { for: 'with-agent' }, 'Other agent'),
      h(
        'select',
        {
          id: 'with-agent',
          value: view.otherAgent,
          onchange: (e) => update({ otherAgent: e.target.value }, true),
        },
        meta.agents.map((a) =>
          h('option', { value: a.id }, `${a.id}  (${[a.role, a.team].filter(Boolean).join(' · ')})`),
        ),
      ),
    );
  }
  const style = h(
    'div',
    { class: 'diff-style', role: 'group', 'aria-label': 'Diff layout' },
    [
      ['unified', 'Unified'],
      ['split', 'Side by side'],
    ].map(([id, label]) =>
      h(
        'button',
        {
          type: 'button',
          id: `diff-${id}`,
          'aria-pressed': String(state.diff === id),
          onclick: () => update({ diff: id }),
        },
        label,
      ),
    ),
    h(
      'button',
      {
        type: 'button',
        id: 'swap',
        class: 'ghost',
        title: 'Swap the two sides',
        onclick: () => update({ swap: !state.swap }),
      },
      '⇄ Swap',
    ),
  );
  return h('div', { class: 'compare-controls' }, mode, detail, style);
}

function unifiedTable(diff) {
  return h(
    'table',
    { class: 'diff unified', id: 'diff' },
    h('caption', { class: 'sr-only' }, 'Unified diff'),
    h('colgroup', null, h('col', { class: 'ln' }), h('col', { class: 'ln' }), h('col')),
    diff.hunks.map((hunk) =>
      h(
        'tbody',
        null,
        h('tr', { class: 'hunk' }, h('td', { colspan: '3' }, hunk.header)),
        hunk.rows.map((row) =>
          h(
            'tr',
            { class: row.kind },
            h('td', { class: 'ln' }, row.old ?? ''),
            h('td', { class: 'ln' }, row.new ?? ''),
            h(
              'td',
              { class: 'code' },
              h('span', { class: 'mark', 'aria-hidden': 'true' }, sign(row)),
              line(row),
            ),
          ),
        ),
      ),
    ),
  );
}

function splitTable(diff) {
  return h(
    'table',
    { class: 'diff split', id: 'diff' },
    h('caption', { class: 'sr-only' }, 'Side-by-side diff'),
    h('colgroup', null, h('col', { class: 'ln' }), h('col'), h('col', { class: 'ln' }), h('col')),
    diff.hunks.map((hunk) =>
      h(
        'tbody',
        null,
        h('tr', { class: 'hunk' }, h('td', { colspan: '4' }, hunk.header)),
        sideBySide(hunk.rows).map(({ left, right }) =>
          h(
            'tr',
            null,
            h('td', { class: 'ln' }, left?.old ?? ''),
            h('td', { class: `code ${left ? left.kind : 'none'}` }, left ? line(left) : ''),
            h('td', { class: 'ln' }, right?.new ?? ''),
            h('td', { class: `code ${right ? right.kind : 'none'}` }, right ? line(right) : ''),
          ),
        ),
      ),
    ),
  );
}

function sign(row) {
  return row.kind === 'add' ? '+' : row.kind === 'del' ? '−' : ' ';
}

function line(row) {
  if (!row.parts) return row.text;
  return row.parts.map((p) => (p.changed ? h('mark', null, p.text) : p.text));
}
