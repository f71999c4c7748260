// Building the page from server text safely: every string becomes a text node, never
// HTML; links are made only for http(s) URLs and open in a new tab without a referrer or
// an opener; bidi overrides and embeddings in server text are shown as visible marks so
// that they cannot reorder what is around them (each string is also in its own <bdi>).

const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/** Text from the server as it may be shown: bidi controls made visible. */
export function clean(text) {
  return String(text ?? '').replace(BIDI_CONTROLS, (c) => `⟦U+${c.codePointAt(0).toString(16).toUpperCase()}⟧`);
}

/** An element with attributes and children; strings become text nodes. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'hidden') el.hidden = true;
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Server text in an isolating <bdi>, bidi controls shown. */
export function text(value, attrs = {}) {
  return h('bdi', attrs, clean(value));
}

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"']+/gi;

/** Message text: plain text with http(s) URLs as safe links. */
export function richText(value) {
  const source = clean(value);
  const out = document.createDocumentFragment();
  let last = 0;
  for (const match of source.matchAll(URL_PATTERN)) {
    let url = match[0].replace(/[.,;:!?)\]]+$/, '');
    const start = match.index;
    if (start > last) out.append(source.slice(last, start));
    out.append(link(url) ?? url);
    last = start + url.length;
  }
  if (last < source.length) out.append(source.slice(last));
  return out;
}

/** A link that opens in a new tab, or null when the URL is not http(s). */
export function link(url, label = url) {
  let parsed;
  try { parsed = new URL(url); } catch { return null; }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return h('a', { href: parsed.href, target: '_blank', rel: 'noopener noreferrer nofollow ugc' }, label);
}

/** Whether an image URL may be shown: our media or an https image. */
export function safeImage(url) {
  if (!url) return null;
  if (/^\/v1\/media\/[A-Za-z0-9_-]{1,64}$/.test(url)) return url;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' ? parsed.href : null;
  } catch { return null; }
}

/** Fills an avatar box: the image, or the name's first letter. */
export function fillAvatar(box, url, name) {
  box.replaceChildren();
  const src = safeImage(url);
  if (src) {
    const img = h('img', { src, alt: '' });
    img.addEventListener('error', () => { img.remove(); box.textContent = initial(name); });
    box.append(img);
  } else {
    box.textContent = initial(name);
  }
}

export function avatar(url, name) {
  const box = h('div', { class: 'avatar', 'aria-hidden': 'true' });
  fillAvatar(box, url, name);
  return box;
}

function initial(name) {
  const first = [...clean(name || '?').trim()][0] || '?';
  return first.toUpperCase();
}

export const $ = (id) => document.getElementById(id);

/** "12:04", or "3 Jan 12:04" for another day. */
export function shortTime(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  const now = new Date();
  const time = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return date.toDateString() === now.toDateString()
    ? time : `${date.toLocaleDateString([], { day: 'numeric', month: 'short' })} ${time}`;
}

/** Shows an element's error text (or clears it). */
export function showError(el, error) {
  el.textContent = error ? (error.message || String(error)) : '';
}
