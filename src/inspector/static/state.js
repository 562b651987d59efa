// The page's selection as data, read from and written to the URL (deep links). Pure.

const VIEWS = ['agent', 'fleet'];
const TABS = ['layers', 'text', 'compare'];
const MODES = ['settings', 'agent', 'previous'];
const DIFFS = ['unified', 'split'];
const SORTS = ['order', 'id', 'role', 'team', 'bytes', 'tokens'];

/** The default selection. */
export function defaultState() {
  return {
    view: 'agent',
    agent: '',
    role: '',
    team: '',
    ambient: '',
    settings: {},
    vars: {},
    tab: 'layers',
    mode: 'settings',
    otherAgent: '',
    otherSettings: {},
    diff: 'unified',
    swap: false,
    sort: 'order',
  };
}

/** Reads a selection from a query string (`?agent=ada&set.fable_mode_enabled=true`). */
export function readState(search) {
  const q = new URLSearchParams(search);
  const s = defaultState();
  s.view = pick(q.get('view'), VIEWS, s.view);
  s.agent = q.get('agent') ?? '';
  s.role = q.get('role') ?? '';
  s.team = q.get('team') ?? '';
  s.ambient = q.get('ambient') ?? '';
  s.tab = pick(q.get('tab'), TABS, s.tab);
  s.mode = pick(q.get('cmp'), MODES, s.mode);
  s.otherAgent = q.get('with') ?? '';
  s.diff = pick(q.get('diff'), DIFFS, s.diff);
  s.swap = q.get('swap') === '1';
  s.sort = pick(q.get('sort'), SORTS, s.sort);
  for (const [key, value] of q) {
    if (key.startsWith('set.')) s.settings[key.slice(4)] = value;
    else if (key.startsWith('var.')) s.vars[key.slice(4)] = value;
    else if (key.startsWith('with.')) s.otherSettings[key.slice(5)] = value;
  }
  return s;
}

/** Writes a selection as a query string holding only what differs from the defaults. */
export function writeState(s) {
  const d = defaultState();
  const q = new URLSearchParams();
  const put = (key, value, def) => {
    if (value !== def && value !== '' && value !== undefined) q.set(key, String(value));
  };
  put('view', s.view, d.view);
  put('agent', s.agent, d.agent);
  put('role', s.role, d.role);
  put('team', s.team, d.team);
  put('ambient', s.ambient, d.ambient);
  for (const key of Object.keys(s.settings).sort()) q.set(`set.${key}`, String(s.settings[key]));
  for (const key of Object.keys(s.vars).sort()) q.set(`var.${key}`, String(s.vars[key]));
  if (s.view === 'agent') {
    put('tab', s.tab, d.tab);
    if (s.tab === 'compare') {
      put('cmp', s.mode, d.mode);
      if (s.mode === 'agent') put('with', s.otherAgent, d.otherAgent);
      if (s.mode === 'settings') {
        for (const key of Object.keys(s.otherSettings).sort())
          q.set(`with.${key}`, String(s.otherSettings[key]));
      }
      put('diff', s.diff, d.diff);
      if (s.swap) q.set('swap', '1');
    }
  } else put('sort', s.sort, d.sort);
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** The compose request body (`POST /api/compose`) of a selection. */
export function requestOf(s, overrides = {}) {
  const req = {};
  const agent = overrides.agent ?? s.agent;
  if (agent) req.agent = agent;
  if (s.role && overrides.agent === undefined) req.role = s.role;
  if (s.team && overrides.agent === undefined) req.team = s.team;
  if (s.ambient) req.ambient = s.ambient;
  const settings = overrides.settings ?? s.settings;
  if (Object.keys(settings).length > 0) req.settings = { ...settings };
  if (Object.keys(s.vars).length > 0) req.vars = { ...s.vars };
  return req;
}

/** Sorts fleet rows ({ id, role, team, bytes, tokens, order }) by a key; sizes largest first. */
export function sortRows(rows, key) {
  const out = [...rows];
  const text = (v) => v ?? '\uffff';
  const cmp = {
    order: (a, b) => a.order - b.order,
    id: (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    role: (a, b) => (text(a.role) < text(b.role) ? -1 : text(a.role) > text(b.role) ? 1 : 0),
    team: (a, b) => (text(a.team) < text(b.team) ? -1 : text(a.team) > text(b.team) ? 1 : 0),
    bytes: (a, b) => (b.bytes ?? -1) - (a.bytes ?? -1),
    tokens: (a, b) => (b.tokens ?? -1) - (a.tokens ?? -1),
  }[key];
  return out.sort((a, b) => cmp(a, b) || a.order - b.order);
}

// --- internal ---

function pick(value, allowed, fallback) {
  return allowed.includes(value) ? value : fallback;
}
