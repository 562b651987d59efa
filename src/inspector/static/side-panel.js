// The side panel: who to compose for (agent, or role and team), and the settings form.
import { h, replace } from './dom.js';

/** Draws the agent / role / team / ambient pickers; `update(patch)` changes the selection. */
export function renderWho(el, { state, meta, update }) {
  const member = meta.agents.find((a) => a.id === state.agent);
  const teams = [...new Set(meta.agents.map((a) => a.team).filter(Boolean))].sort();
  let timer;
  replace(
    el,
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'agent' }, 'Agent'),
      h(
        'select',
        {
          id: 'agent',
          value: state.agent,
          onchange: (e) => update({ agent: e.target.value, role: '', team: '' }, true),
        },
        h('option', { value: '' }, meta.agents.length ? '— none (role and team below) —' : '— no fleet —'),
        meta.agents.map((a) =>
          h('option', { value: a.id }, `${a.id}  (${[a.role, a.team].filter(Boolean).join(' · ')})`),
        ),
      ),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'role' }, 'Role'),
      h(
        'select',
        { id: 'role', value: state.role, onchange: (e) => update({ role: e.target.value }, true) },
        h('option', { value: '' }, member ? `(agent's: ${member.role ?? 'none'})` : '(none)'),
        meta.roles.map((r) =>
          h('option', { value: r.id, title: r.description }, r.name ? `${r.id} — ${r.name}` : r.id),
        ),
      ),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'team' }, 'Team'),
      h('input', {
        id: 'team',
        list: 'teams',
        value: state.team,
        placeholder: member?.team ? `(agent's: ${member.team})` : '(none)',
        autocomplete: 'off',
        spellcheck: 'false',
        onchange: (e) => update({ team: e.target.value.trim() }, true),
      }),
      h(
        'datalist',
        { id: 'teams' },
        teams.map((t) => h('option', { value: t })),
      ),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'ambient' }, 'Ambient context'),
      h('textarea', {
        id: 'ambient',
        rows: '3',
        value: state.ambient,
        placeholder: 'text for the ambient layer',
        oninput: (e) => {
          clearTimeout(timer);
          timer = setTimeout(() => update({ ambient: e.target.value }), 300);
        },
      }),
    ),
  );
}

/**
 * Draws a settings form from the pack's settings schema (`GET /api/settings`): a switch
 * per boolean, a select per enum, a field per string or integer, each with its default
 * and env var. `values` holds the overrides; `onChange(name, value|undefined)` sets or
 * clears one (a value equal to the service's own clears it).
 */
export function renderSettings(el, { defs, values, prefix, onChange, onReset }) {
  if (defs.length === 0) {
    replace(el, h('p', { class: 'muted' }, 'This pack has no settings.'));
    return;
  }
  const set = (def, raw) => onChange(def.name, sameValue(def, raw, base(def)) ? undefined : String(raw));
  const rows = defs.map((def) => {
    const id = `${prefix}-${def.name}`;
    const current = values[def.name] ?? base(def);
    const overridden = values[def.name] !== undefined;
    const hint = [
      `default ${String(def.default)}`,
      def.env && `env ${def.env}${def.source === 'env' ? ` = ${String(def.value)}` : ''}`,
    ].filter(Boolean);
    let control;
    if (def.type === 'boolean') {
      control = h(
        'label',
        { class: 'switch', for: id },
        h('input', {
          id,
          type: 'checkbox',
          role: 'switch',
          checked: truthy(current),
          onchange: (e) => set(def, e.target.checked),
        }),
        h('span', { class: 'name' }, def.name),
      );
    } else if (def.type === 'enum') {
      control = [
        h('label', { for: id, class: 'name' }, def.name),
        h(
          'select',
          { id, value: String(current), onchange: (e) => set(def, e.target.value) },
          (def.values ?? []).map((v) => h('option', { value: v }, v)),
        ),
      ];
    } else {
      const integer = def.type === 'integer';
      control = [
        h('label', { for: id, class: 'name' }, def.name),
        h('input', {
          id,
          type: integer ? 'number' : 'text',
          step: integer ? '1' : undefined,
          min: def.min,
          max: def.max,
          value: String(current),
          spellcheck: 'false',
          onchange: (e) => set(def, e.target.value),
        }),
      ];
    }
    return h(
      'div',
      { class: `setting${overridden ? ' overridden' : ''}`, dataset: { setting: def.name } },
      control,
      def.description && h('p', { class: 'desc' }, def.description),
      h('p', { class: 'hint' }, hint.join(' · '), overridden ? h('span', { class: 'tag' }, 'changed') : null),
    );
  });
  const any = Object.keys(values).length > 0;
  replace(
    el,
    rows,
    any &&
      h(
        'button',
        { type: 'button', class: 'ghost small', id: `${prefix}-reset`, onclick: onReset },
        'Reset to the service’s values',
      ),
  );
}

// --- internal ---

const TRUE = new Set(['true', '1', 'yes', 'on']);

function truthy(v) {
  return v === true || TRUE.has(String(v).toLowerCase());
}

/** The value the service uses when the page sends no override (env or default). */
function base(def) {
  return def.value ?? def.default;
}

function sameValue(def, a, b) {
  if (def.type === 'boolean') return truthy(a) === truthy(b);
  return String(a) === String(b);
}
