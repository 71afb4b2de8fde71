// Small DOM helpers: every text goes through textContent, never innerHTML.

import { httpRefusal } from "./errors.js";

/** h("button", {class: "x", onclick: f, "aria-label": "..."}, "text", child, [more]) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "style" && typeof value === "object") {
      Object.assign(el.style, value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** SVG elements (the rating chart). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    el.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * Classes that start a CSS animation when an element gets them: an element drawn with one is put
 * in as new (its animation plays from the start) instead of being patched.
 */
const ONE_SHOT = /(^|\s)(fresh|arrived|notes-in|notes-out)(\s|$)/;

/**
 * Make `old` (in the page) look like `fresh` (just built by h(), not in the page) by changing only
 * what differs: attributes, texts, and children position by position; a child of another tag, or
 * drawn with a one-shot animation class, is replaced whole. Unchanged
 * parts are not touched, so the browser lays out only what changed, a card flying (element.animate)
 * keeps flying, and focus stays where it was. Event listeners are not carried over: use it for
 * views without them (the Kuhhandel board). Returns the element now in the page.
 */
export function morph(old, fresh) {
  if (fresh.build) {
    // a part drawn unchanged (kept()): the one in the page stays as it is, untouched
    if (old.nodeName === fresh.nodeName && old.getAttribute("data-v") === fresh.getAttribute("data-v")) return old;
    fresh = fresh.build();
  }
  if (old.nodeType !== fresh.nodeType || old.nodeName !== fresh.nodeName) {
    old.replaceWith(materialize(fresh));
    return fresh;
  }
  if (fresh.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== fresh.nodeValue) old.nodeValue = fresh.nodeValue;
    return old;
  }
  if (ONE_SHOT.test(fresh.getAttribute("class") || "")) {
    old.replaceWith(materialize(fresh));
    return fresh;
  }
  for (const { name } of [...old.attributes]) if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  for (const { name, value } of fresh.attributes) if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  const was = [...old.childNodes];
  const now = [...fresh.childNodes];
  now.forEach((child, i) => (i < was.length ? morph(was[i], child) : old.appendChild(materialize(child))));
  for (const child of was.slice(now.length)) child.remove();
  return old;
}

/**
 * A stand-in for a part of a view that did not change since the last draw (version `v`, an
 * element's `data-v`): morph() leaves the part in the page alone instead of building it again
 * and comparing it node by node; where there is nothing to keep, `build()` draws it.
 */
export function kept(tag, v, build) {
  const el = document.createElement(tag);
  el.setAttribute("data-v", String(v));
  el.setAttribute("data-kept", "");
  el.build = () => {
    const real = build();
    real.setAttribute("data-v", String(v));
    return real;
  };
  return el;
}

/** `el` with every stand-in (kept()) in it drawn: for a view put in the page whole. */
export function materialize(el) {
  if (el.nodeType !== Node.ELEMENT_NODE) return el;
  if (el.build) return el.build();
  for (const part of el.querySelectorAll("[data-kept]")) part.replaceWith(part.build());
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

let toastTimer = null;
/** A short message in the polite live region (and visible at the bottom). */
export function toast(text, kind = "info") {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = text;
  el.className = `toast show ${kind}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.className = "toast"; }, kind === "error" ? 8000 : 4000);
}

export async function getJSON(path) {
  const reply = await fetch(path, { headers: { Accept: "application/json" } });
  if (!reply.ok) {
    throw new Error(await httpRefusal(reply)); // the code's words (errors.js), else the detail
  }
  return reply.json();
}

export function plural(n, word, many = word + "s") {
  return `${n} ${n === 1 ? word : many}`;
}

export function seconds(ms) {
  return `${Math.max(0, Math.ceil(ms / 1000))} s`;
}
