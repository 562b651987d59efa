// A tiny DOM builder: h('div', { class: 'x', onclick }, child, …). Text is always set as
// text (never parsed as HTML), so prompt content cannot inject markup.

/** Creates an element with attributes, properties, listeners and children. */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  const late = {};
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'style') for (const [k, v] of Object.entries(value)) el.style.setProperty(k, String(v));
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'value' || key === 'checked' || key === 'selected') late[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  Object.assign(el, late);
  return el;
}

/** Replaces an element's children. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Redraws a container with `draw()` and gives focus back to the element with the same id
 * (or `nextId`) when focus was inside it, so keyboard users keep their place.
 */
export function keepFocus(container, draw, nextId) {
  const active = document.activeElement;
  const id = nextId ?? (active && container.contains(active) ? active.id : '');
  draw();
  if (id && (nextId || !container.contains(document.activeElement))) document.getElementById(id)?.focus();
}

// --- internal ---

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}
