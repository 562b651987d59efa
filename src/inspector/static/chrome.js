// The page's frame: the theme switch, the live indicator, the reload-error banner, the
// held-version banner, the reload notice and the toast.

import { formatDiagnostic } from './diagnostic-format.js';
import { h, replace } from './dom.js';
import { shortHash } from './format.js';

const $ = (id) => document.getElementById(id);

/** Shows whether the event stream is connected: `live` or `down`. */
export function setLive(state) {
  const el = $('live');
  el.dataset.state = state;
  el.textContent = state === 'live' ? 'live' : 'reconnecting…';
}

/** Shows the failed reload's diagnostics (or hides the banner when `lastError` is null). */
export function showBanner(lastError, version) {
  const el = $('banner');
  if (!lastError) {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  const lines = (lastError.diagnostics ?? []).filter((d) => d.severity !== 'warning').map(formatDiagnostic);
  replace(
    el,
    h('strong', null, 'The last reload failed'),
    ` — still serving the last good version ${shortHash(version)}. Fix the pack and save; it reloads by itself.`,
    h(
      'pre',
      { id: 'banner-diagnostics' },
      (lines.length ? lines : (lastError.diagnostics ?? []).map(formatDiagnostic)).join('\n'),
    ),
  );
  el.hidden = false;
}

/**
 * Shows a new version held back because it would degrade members (or hides the banner when
 * `held` is null): the members and what each would lose, the version still served, and how
 * to serve the held one anyway. `held` is /api/status's `held` ({ version, members,
 * diagnostics }); `origin` is the service's, for the accept command.
 */
export function showHeld(held, version, origin) {
  const el = $('held');
  if (!held) {
    el.hidden = true;
    el.replaceChildren();
    delete el.dataset.held;
    return;
  }
  const members = held.members ?? [];
  const accept = `curl -X POST -H "Authorization: Bearer $STRATA_ADMIN_TOKEN" '${origin}/api/prompts/reload?accept=${held.version}'`;
  replace(
    el,
    h('strong', null, `New pack version ${shortHash(held.version)} is held`),
    ` — it would degrade ${members.length} ${members.length === 1 ? 'member' : 'members'} (${members.map((m) => m.label).join(', ')}); still serving ${shortHash(version)}.`,
    h('pre', { id: 'held-diagnostics' }, (held.diagnostics ?? []).map(formatDiagnostic).join('\n')),
    h(
      'p',
      null,
      'Put the files back and the hold clears by itself. To serve the held version anyway, accept it with the admin token:',
    ),
    h(
      'div',
      { class: 'accept' },
      h('code', { id: 'held-accept' }, accept),
      h(
        'button',
        {
          type: 'button',
          class: 'ghost small',
          id: 'copy-accept',
          onclick: async () => {
            await navigator.clipboard?.writeText(accept);
            toast('Command copied');
          },
        },
        'Copy',
      ),
    ),
  );
  el.dataset.held = held.version;
  el.hidden = false;
}

/** Says what the last reload changed. */
export function notice(text) {
  const el = $('notice');
  replace(
    el,
    h('span', { id: 'notice-text' }, text),
    h(
      'button',
      { type: 'button', class: 'ghost small', 'aria-label': 'Dismiss', onclick: () => (el.hidden = true) },
      '✕',
    ),
  );
  el.hidden = false;
}

let toastTimer;

/** A short confirmation in the corner ("Prompt copied"). */
export function toast(text) {
  let el = $('toast');
  if (!el) {
    el = h('div', { id: 'toast', class: 'toast', role: 'status' });
    document.body.append(el);
  }
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.hidden = true), 1800);
}

const THEMES = ['auto', 'light', 'dark'];

/** The Theme button: auto (the system's scheme), light, dark; remembered per browser. */
export function setupTheme() {
  const button = $('theme');
  const apply = (theme) => {
    if (theme === 'auto') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    button.textContent = `Theme: ${theme}`;
  };
  let theme = localStorage.getItem('strata-theme') ?? 'auto';
  if (!THEMES.includes(theme)) theme = 'auto';
  apply(theme);
  button.addEventListener('click', () => {
    theme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length];
    localStorage.setItem('strata-theme', theme);
    apply(theme);
  });
}
