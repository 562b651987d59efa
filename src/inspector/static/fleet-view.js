// The fleet view: every fleet member's prompt size and hash as a stacked bar of bytes per
// layer, sortable; choosing a bar opens that agent.

import { formatDiagnostic } from './diagnostic-format.js';
import { h, replace } from './dom.js';
import { formatBytes, groupDigits, layerHues, shortHash } from './format.js';
import { sortRows } from './state.js';

const SORTS = [
  ['order', 'Fleet order'],
  ['id', 'Name'],
  ['role', 'Role'],
  ['team', 'Team'],
  ['bytes', 'Size'],
  ['tokens', 'Tokens'],
];

/**
 * Draws the fleet view. `view` = { rows: [{ order, id, role, team, agent, result?, error?,
 * changed }], state, byRole, open(row), update }.
 */
export function renderFleet(main, view) {
  const { state, update } = view;
  const withTokens = view.rows.some((r) => r.tokens !== undefined);
  const rows = sortRows(view.rows, state.sort);
  const max = Math.max(1, ...rows.map((r) => r.bytes ?? 0));
  const pipeline = view.rows.flatMap((r) => r.result?.layers ?? []);
  const hues = layerHues(pipeline);
  const layerIds = [...hues.keys()].filter((id) => pipeline.some((l) => l.id === id && l.included));
  const total = view.rows.reduce((n, r) => n + (r.bytes ?? 0), 0);
  main.dataset.sha = '';
  replace(
    main,
    h(
      'section',
      { class: 'summary' },
      h(
        'h2',
        null,
        view.byRole ? 'Roles' : 'Fleet',
        h('span', { class: 'muted' }, ` ${rows.length} ${view.byRole ? 'roles' : 'agents'}`),
      ),
      h(
        'p',
        { class: 'muted' },
        view.byRole ? 'This pack has no fleet: one prompt per known role.' : null,
        ` ${formatBytes(total)} in all.`,
      ),
    ),
    h(
      'div',
      { class: 'fleet-tools' },
      h(
        'div',
        { class: 'sorts', role: 'group', 'aria-label': 'Sort by' },
        h('span', { class: 'muted' }, 'Sort by '),
        SORTS.filter(([id]) => id !== 'tokens' || withTokens).map(([id, label]) =>
          h(
            'button',
            {
              type: 'button',
              id: `sort-${id}`,
              'aria-pressed': String(state.sort === id),
              onclick: () => update({ sort: id }),
            },
            label,
          ),
        ),
      ),
      h(
        'ul',
        { class: 'legend', 'aria-label': 'Layers' },
        layerIds.map((id) =>
          h(
            'li',
            { style: { '--hue': hues.get(id) } },
            h('span', { class: 'chip', 'aria-hidden': 'true' }),
            id,
          ),
        ),
      ),
    ),
    h(
      'ol',
      { class: 'fleet', id: 'fleet' },
      rows.map((row) =>
        h(
          'li',
          { class: `fleet-row${row.changed ? ' changed' : ''}`, dataset: { agent: row.id } },
          h(
            'button',
            {
              type: 'button',
              class: 'fleet-open',
              title: `Open ${row.id}`,
              'aria-label': `Open ${row.id}: ${row.bytes === undefined ? 'cannot compose' : formatBytes(row.bytes)}`,
              onclick: () => view.open(row),
            },
            h(
              'span',
              { class: 'who' },
              h('strong', null, row.id),
              h('span', { class: 'muted' }, [row.role, row.team].filter(Boolean).join(' · ')),
            ),
            h(
              'span',
              { class: 'track' },
              row.result
                ? h(
                    'span',
                    { class: 'bar', style: { width: `${((row.bytes ?? 0) / max) * 100}%` } },
                    segments(row.result, hues),
                  )
                : h('span', { class: 'row-error' }, row.error ? rowError(row.error) : ''),
            ),
            h(
              'span',
              { class: 'size' },
              row.bytes === undefined ? '—' : formatBytes(row.bytes),
              withTokens &&
                row.tokens !== undefined &&
                h('span', { class: 'muted' }, ` · ${groupDigits(row.tokens)} tok`),
            ),
            h('code', { class: 'hash', title: row.result?.sha256 ?? '' }, shortHash(row.result?.sha256)),
            row.changed && h('span', { class: 'tag hot' }, 'changed'),
          ),
        ),
      ),
    ),
  );
}

// --- internal ---

function segments(result, hues) {
  const layers = result.layers.filter((l) => l.included);
  const sum = layers.reduce((n, l) => n + (l.bytes ?? 0), 0) || 1;
  return layers.map((l) =>
    h('span', {
      class: 'seg',
      dataset: { layer: l.id },
      style: { '--hue': hues.get(l.id), width: `${((l.bytes ?? 0) / sum) * 100}%` },
      title: `${l.id}: ${formatBytes(l.bytes ?? 0)}`,
    }),
  );
}

function rowError(error) {
  return error.diagnostics?.length
    ? formatDiagnostic(error.diagnostics[0])
    : `${error.code}: ${error.message}`;
}
