// The inspector's controller: holds the selection, talks to the service, redraws the
// views, and follows the pack live through the service's events.
import { renderAgent, tokensOf } from './agent-view.js';
import { notice, setLive, setupTheme, showBanner, showHeld, toast } from './chrome.js';
import * as api from './client.js';
import { keepFocus } from './dom.js';
import { renderFleet } from './fleet-view.js';
import { changedLayers, shortHash } from './format.js';
import { renderSettings, renderWho } from './side-panel.js';
import { readState, requestOf, writeState } from './state.js';

const $ = (id) => document.getElementById(id);

const app = {
  state: readState(location.search),
  meta: { version: '', agents: [], roles: [], settings: [], inputs: [] },
  /** The last good prompt of the agent view and the request that made it. */
  result: undefined,
  resultKey: '',
  /** Agents and roles the last reload changed. */
  lastChange: { agents: [], roles: [] },
  seq: 0,
};

async function boot() {
  setupTheme();
  window.addEventListener('popstate', () => {
    app.state = readState(location.search);
    drawSide();
    refresh();
  });
  for (const link of document.querySelectorAll('.views a')) {
    link.addEventListener('click', (e) => {
      e.preventDefault();
      update({ view: link.dataset.view }, true);
    });
  }
  api.subscribe({
    onHello,
    onReload,
    onError: onReloadError,
    onHeld,
    onRecovered: () => {
      showBanner(null);
      showHeld(null);
    },
    onState: setLive,
  });
  await loadMeta();
  drawSide();
  await refresh();
}

/** Changes the selection, records it in the URL (a history entry when `push`) and redraws. */
function update(patch, push = false) {
  const sideChanged = ['agent', 'role', 'team', 'settings', 'view'].some((k) => k in patch);
  Object.assign(app.state, patch);
  const url = `${location.pathname}${writeState(app.state)}`;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
  if (sideChanged) drawSide();
  return refresh();
}

async function loadMeta() {
  const [fleet, roles, settings] = await Promise.allSettled([
    api.getFleet(),
    api.getRoles(),
    api.getSettings(),
  ]);
  if (fleet.status === 'fulfilled') app.meta.agents = fleet.value.agents ?? [];
  if (roles.status === 'fulfilled') app.meta.roles = roles.value.roles ?? [];
  if (settings.status === 'fulfilled') {
    app.meta.settings = settings.value.settings ?? [];
    app.meta.inputs = settings.value.inputs ?? [];
  }
  const version = [fleet, roles, settings].find((r) => r.status === 'fulfilled')?.value.version;
  if (version) setVersion(version);
}

function drawSide() {
  const { state, meta } = app;
  for (const link of document.querySelectorAll('.views a')) {
    const here = link.dataset.view === state.view;
    link.href = writeState({ ...state, view: link.dataset.view }) || '?';
    if (here) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  $('who').closest('section').hidden = state.view !== 'agent';
  keepFocus($('who'), () => renderWho($('who'), { state, meta, update }));
  keepFocus($('settings'), () => drawSettings());
  keepFocus($('inputs'), () => drawInputs());
}

/** Request inputs (`var.KEY`) as fields typed like settings; shown only for packs that take them. */
function drawInputs() {
  const { state, meta } = app;
  const defs = (meta.inputs ?? []).map((i) => ({
    ...i,
    default: i.default ?? '',
    value: i.default ?? '',
    description: [i.description, i.required ? 'required' : null].filter(Boolean).join(' · ') || null,
  }));
  $('inputs').closest('section').hidden = defs.length === 0;
  if (defs.length === 0) return;
  renderSettings($('inputs'), {
    defs,
    values: state.vars,
    prefix: 'var',
    onChange: (name, value) => {
      const next = { ...state.vars };
      if (value === undefined) delete next[name];
      else next[name] = value;
      update({ vars: next });
    },
    onReset: () => update({ vars: {} }),
  });
}

function drawSettings() {
  const { state, meta } = app;
  renderSettings($('settings'), {
    defs: meta.settings,
    values: state.settings,
    prefix: 'set',
    onChange: (name, value) => {
      const next = { ...state.settings };
      if (value === undefined) delete next[name];
      else next[name] = value;
      update({ settings: next });
    },
    onReset: () => update({ settings: {} }),
  });
}

/** Recomposes what the current view shows. `reload` marks what the new version changed. */
async function refresh(reload = false) {
  const seq = ++app.seq;
  document.body.dataset.busy = '1';
  try {
    if (app.state.view === 'fleet') await refreshFleet(seq, reload);
    else await refreshAgent(seq, reload);
  } finally {
    if (seq === app.seq) {
      delete document.body.dataset.busy;
      document.body.dataset.ready = '1';
    }
  }
}

async function refreshAgent(seq, reload) {
  const { state } = app;
  if (!state.agent && !state.role && !state.team && app.meta.agents.length > 0 && !state.ambient) {
    // Nothing chosen yet: start on the first fleet member.
    state.agent = app.meta.agents[0].id;
    history.replaceState(null, '', `${location.pathname}${writeState(state)}`);
    drawSide();
  }
  const req = requestOf(state);
  const key = JSON.stringify(req);
  let result;
  let error;
  try {
    result = await api.compose(req);
  } catch (e) {
    error = e;
  }
  if (seq !== app.seq) return;
  let changed = new Set();
  if (result && reload && app.result && app.resultKey === key) changed = changedLayers(app.result, result);
  if (result) {
    app.result = result;
    app.resultKey = key;
  }
  const compare = result && state.tab === 'compare' ? await loadCompare(result, req) : undefined;
  if (seq !== app.seq) return;
  renderAgent($('main'), {
    state,
    meta: app.meta,
    result,
    error,
    changed,
    compare,
    label: labelOf(result, state.settings),
    otherAgent: compare?.otherAgent ?? state.otherAgent,
    update,
    toast,
  });
}

/** The other side of a comparison: `{ label, result }` or `{ error }`. */
async function loadCompare(result, req) {
  const { state, meta } = app;
  try {
    if (state.mode === 'settings') {
      const other = await api.compose(requestOf(state, { settings: state.otherSettings }));
      return { label: labelOf(other, state.otherSettings), result: other };
    }
    if (state.mode === 'agent') {
      const otherAgent = state.otherAgent || meta.agents.find((a) => a.id !== result.agent)?.id;
      if (!otherAgent) return { error: 'The fleet has no other agent.' };
      const other = await api.compose(requestOf(state, { agent: otherAgent }));
      return { label: labelOf(other, state.settings), result: other, otherAgent };
    }
    const other = await api.compose({ ...req, version: 'previous' });
    return { label: `previous version ${shortHash(other.version)}`, result: other };
  } catch (e) {
    if (state.mode === 'previous' && e.code === 'UNKNOWN_VERSION') {
      return { error: 'No previous version yet: the pack has not changed since the service started.' };
    }
    return { error: `${e.code}: ${e.message}` };
  }
}

async function refreshFleet(seq, reload) {
  const { state, meta } = app;
  const byRole = meta.agents.length === 0;
  const members = byRole
    ? meta.roles.map((r) => ({ id: r.id, role: r.id, request: { role: r.id } }))
    : meta.agents.map((a) => ({ id: a.id, role: a.role, team: a.team, request: { agent: a.id } }));
  const settled = await Promise.allSettled(
    members.map((m) =>
      api.compose({
        ...m.request,
        ...(Object.keys(state.settings).length ? { settings: state.settings } : {}),
      }),
    ),
  );
  if (seq !== app.seq) return;
  const changedAgents = new Set(reload ? app.lastChange.agents : []);
  const changedRoles = new Set(reload ? app.lastChange.roles : []);
  const rows = members.map((m, order) => {
    const outcome = settled[order];
    const result = outcome.status === 'fulfilled' ? outcome.value : undefined;
    return {
      order,
      id: m.id,
      role: m.role,
      team: m.team,
      result,
      error: outcome.status === 'rejected' ? outcome.reason : undefined,
      bytes: result?.bytes,
      tokens: tokensOf(result),
      changed: changedAgents.has(m.id) || (byRole && changedRoles.has(m.id)),
    };
  });
  const fleetView = {
    rows,
    state,
    byRole,
    update,
    open: (row) =>
      update(
        {
          view: 'agent',
          tab: 'layers',
          ...(byRole ? { agent: '', role: row.id, team: '' } : { agent: row.id, role: '', team: '' }),
        },
        true,
      ),
  };
  keepFocus($('main'), () => renderFleet($('main'), fleetView));
}

// --- live updates ---

async function onReload(data) {
  showBanner(null);
  showHeld(null);
  app.lastChange = { agents: data.changed?.agents ?? [], roles: data.changed?.roles ?? [] };
  await loadMeta();
  if (data.version) setVersion(data.version);
  drawSide();
  const parts = [];
  if (app.lastChange.agents.length) parts.push(`agents ${app.lastChange.agents.join(', ')}`);
  if (app.lastChange.roles.length) parts.push(`roles ${app.lastChange.roles.join(', ')}`);
  const what = !data.changed
    ? ''
    : parts.length
      ? ` Prompts changed for ${parts.join('; ')}.`
      : ' No prompt changed.';
  notice(`Pack reloaded: ${shortHash(data.previous) || '—'} → ${shortHash(data.version)}.${what}`);
  await refresh(true);
}

async function onReloadError(data) {
  let diagnostics = data?.diagnostics;
  let version = app.meta.version;
  try {
    const status = await api.getStatus();
    diagnostics = status.lastError?.diagnostics ?? diagnostics;
    version = status.version ?? version;
  } catch {
    // Keep what the event said.
  }
  showBanner({ diagnostics: diagnostics ?? [] }, version);
}

/** A new version is held back: the banner says what it would take away and how to accept it. */
async function onHeld(data) {
  let held = { version: data?.held, members: data?.members, diagnostics: data?.diagnostics };
  let version = data?.version ?? app.meta.version;
  try {
    const status = await api.getStatus();
    held = status.held ?? held;
    version = status.version ?? version;
  } catch {
    // Keep what the event said.
  }
  showHeld(held, version, location.origin);
}

/** A stream (re)started: catch up on a version or a failure missed while away. */
async function onHello(data) {
  try {
    const status = await api.getStatus();
    showBanner(status.lastError ?? null, status.version);
    showHeld(status.held ?? null, status.version, location.origin);
  } catch {
    // The status endpoint is informative only.
  }
  const seen = app.meta.version;
  if (seen && data?.version && data.version !== seen) {
    await onReload({ version: data.version, previous: seen });
  }
}

// --- small things ---

function labelOf(result, settings) {
  if (!result) return '';
  const who = result.agent ?? result.role ?? '(no role)';
  const set = Object.entries(settings).map(([k, v]) => `${k}=${v}`);
  return set.length ? `${who} with ${set.join(' ')}` : `${who} with the service’s settings`;
}

function setVersion(version) {
  app.meta.version = version;
  const el = $('version');
  el.textContent = shortHash(version);
  el.title = `Pack version ${version}`;
  document.body.dataset.version = version;
}

boot();
