// The person's language: one catalog per language (src/cardtable/i18n/catalogs/{lang}.json, the
// same files the terminal reads), served at /i18n/{lang}.json. Messages are ICU MessageFormat:
// {name}, {count, number}, {count, plural, one {# note} other {# notes}}, {kind, select, a {..}
// other {..}}; plural categories come from the browser's Intl.PluralRules and numbers from
// Intl.NumberFormat (CLDR data), never from code of ours.
//
// Which language: the one chosen with the switcher on this browser (localStorage, and a cookie
// the server reads), else the signed-in account's, else the server's pick from Accept-Language
// (GET /i18n/choice answers all three in one read). Each person's page reads its own catalog, so
// two people at one table each read their own language: the server sends codes, not sentences.

const STORE_KEY = "cardtable.lang";
const COOKIE = "cardtable_lang";

export let lang = "en";
/** Codes and each language's own name, as the server lists them. */
export let languages = [["en", "English"]];
let catalog = {};
let fallback = {};
const parsed = new Map();

/** Load the person's catalog (and English for a key a translation lacks); call once at start. */
export async function loadLanguage() {
  let choice = { lang: "en", languages };
  try {
    choice = await (await fetch("/i18n/choice", { credentials: "same-origin" })).json();
  } catch (_) { /* offline or an old server: English */ }
  languages = choice.languages || languages;
  const codes = languages.map(([code]) => code);
  const saved = localStorage.getItem(STORE_KEY);
  lang = saved && codes.includes(saved) ? saved : choice.lang;
  const [own, en] = await Promise.all([readCatalog(lang), lang === "en" ? null : readCatalog("en")]);
  catalog = own || {};
  fallback = en || catalog;
  if (!own) lang = "en";
  document.documentElement.lang = lang;
  translatePage(document);
  return lang;
}

async function readCatalog(code) {
  try {
    const reply = await fetch(`/i18n/${code}.json`);
    return reply.ok ? await reply.json() : null;
  } catch (_) {
    return null;
  }
}

/** Switch language: remembered on this browser (and for the account, by the server). */
export async function setLanguage(code) {
  localStorage.setItem(STORE_KEY, code);
  document.cookie = `${COOKIE}=${encodeURIComponent(code)}; path=/; max-age=31536000; samesite=lax`;
  try {
    await fetch("/i18n/choice", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() },
      body: JSON.stringify({ lang: code }),
    });
  } catch (_) { /* a guest, or offline: the browser remembers it */ }
  location.reload();
}

/** The CSRF token a POST echoes: the ct_csrf cookie's value, the one the browser sends with it. */
export function csrfToken() {
  const m = document.cookie.match(/(?:^|;\s*)ct_csrf=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : "";
}

/** Is there a message for `key` (in the person's language or in English)? */
export const has = (key) => Object.hasOwn(catalog, key) || Object.hasOwn(fallback, key);

/** The message `key` in the person's language, with `args` put in. */
export function t(key, args = {}) {
  const source = Object.hasOwn(catalog, key) ? catalog[key] : Object.hasOwn(fallback, key) ? fallback[key] : null;
  if (source === null) return key;
  let ast = parsed.get(source);
  if (!ast) {
    try { ast = parse(source); } catch (err) { console.error(`bad message ${key}: ${err.message}`); return source; }
    parsed.set(source, ast);
  }
  return render(ast, args, null);
}

/**
 * A sentence the server sends in no language ({key, args, default}: core/message.py's
 * Message.to_json; a nested message as an argument is worded first) in the person's words;
 * `english` (the server's own English beside it) when there is none or no catalog knows it.
 */
export function say(words, english = "") {
  if (!words || typeof words !== "object" || typeof words.key !== "string") return english;
  if (!has(words.key)) return typeof words.default === "string" ? words.default : english;
  const args = {};
  for (const [k, v] of Object.entries(words.args || {})) args[k] = v && typeof v === "object" ? say(v, "") : v;
  return t(words.key, args);
}

/**
 * The message `key` as parts for h(): each `nodes` argument ({file: h("a", …)}) stands where the
 * message places it (a link or code inside a sentence, in each language's word order).
 */
export function tParts(key, nodes, args = {}) {
  const marks = Object.fromEntries(Object.keys(nodes).map((k) => [k, `\u0001${k}\u0001`]));
  return t(key, { ...args, ...marks }).split("\u0001").map((part, i) => (i % 2 ? nodes[part] : part)).filter((x) => x !== "");
}

/** Use `own` (the catalog of `code`) and `english` without a browser (Node.js: the checks). */
export function useCatalog(code, own, english) {
  lang = code;
  catalog = own;
  fallback = english;
  parsed.clear();
}

/** Parse `message` (ICU MessageFormat): throws on a malformed one (the catalogs' check). */
export function check(message) {
  parse(message);
}

/** `message` formatted in `code` without a catalog (the catalogs' check, in Node.js). */
export function formatIn(code, message, args = {}) {
  const was = lang;
  lang = code;
  try { return render(parse(message), args, null); } finally { lang = was; }
}

/** A number as the person writes it (`options` as Intl.NumberFormat takes them, e.g.
 * { minimumFractionDigits: 1, maximumFractionDigits: 1 } or { style: "percent" }). */
export const num = (n, options) => numberFormat(options).format(n);
/** A moment (a Date, an ISO string or milliseconds) as the person writes it: date and time, or
 * what `options` ask for as Intl.DateTimeFormat takes them ({ dateStyle: "medium" }). */
export const when = (moment, options = MOMENT) => intl(Intl.DateTimeFormat, options).format(new Date(moment));
const MOMENT = { dateStyle: "medium", timeStyle: "short" };

// one formatter per language and options, made once: making them is slow (a drawing's profile
// spent ~0.5 s of 10 s remaking them per number)
const formatters = new Map();
function intl(Make, options) {
  const key = `${Make.name} ${lang} ${options ? JSON.stringify(options) : ""}`;
  let made = formatters.get(key);
  if (!made) formatters.set(key, (made = new Make(lang, options)));
  return made;
}
const numberFormat = (options) => intl(Intl.NumberFormat, options);
const pluralRules = (options) => intl(Intl.PluralRules, options);

/** Elements with data-i18n="key" (the page shell's static text) get their text from the catalog;
 * data-i18n-attr="aria-label:key" sets attributes. */
export function translatePage(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      el.setAttribute(attr.trim(), t(key.trim()));
    }
  }
}

// ---------------------------------------------------------------- ICU MessageFormat (subset)
// Text, {arg}, {arg, number}, {arg, plural, [offset:n] =n {..} category {..}}, {arg, select, ..},
// # inside a plural, and '' / '{..}' quoting as ICU writes them.

function parse(text) {
  let i = 0;
  function message(inPlural) {
    const parts = [];
    let buf = "";
    while (i < text.length) {
      const c = text[i];
      if (c === "'") {
        if (text[i + 1] === "'") { buf += "'"; i += 2; continue; }
        if ("{}#".includes(text[i + 1] || "")) {
          const end = text.indexOf("'", i + 1);
          buf += text.slice(i + 1, end < 0 ? text.length : end);
          i = end < 0 ? text.length : end + 1;
          continue;
        }
        buf += c; i += 1; continue;
      }
      if (c === "}") break;
      if (c === "#" && inPlural) { if (buf) parts.push(buf); buf = ""; parts.push({ hash: true }); i += 1; continue; }
      if (c === "{") { if (buf) parts.push(buf); buf = ""; i += 1; parts.push(argument()); continue; }
      buf += c; i += 1;
    }
    if (buf) parts.push(buf);
    return parts;
  }
  function word() {
    while (/\s/.test(text[i])) i += 1;
    const m = /^[^\s,{}]+/.exec(text.slice(i));
    if (!m) throw new Error(`a name expected at ${i}`);
    i += m[0].length;
    while (/\s/.test(text[i])) i += 1;
    return m[0];
  }
  function argument() {
    const name = word();
    if (text[i] === "}") { i += 1; return { arg: name }; }
    if (text[i] !== ",") throw new Error(`"," expected at ${i}`);
    i += 1;
    const type = word();
    if (text[i] === "}") { i += 1; return { arg: name, type }; }
    if (text[i] !== ",") throw new Error(`"," expected at ${i}`);
    i += 1;
    if (type !== "plural" && type !== "select" && type !== "selectordinal") {
      const end = text.indexOf("}", i);
      i = end + 1;
      return { arg: name, type };
    }
    const options = {};
    let offset = 0;
    for (;;) {
      while (/\s/.test(text[i])) i += 1;
      if (text[i] === "}") { i += 1; break; }
      const key = word();
      if (key.startsWith("offset:")) { offset = Number(key.slice(7)); continue; }
      if (text[i] !== "{") throw new Error(`"{" expected at ${i}`);
      i += 1;
      options[key] = message(type !== "select");
      if (text[i] !== "}") throw new Error(`"}" expected at ${i}`);
      i += 1;
    }
    if (!options.other) throw new Error(`${name}: no "other" case`);
    return { arg: name, type, options, offset };
  }
  const out = message(false);
  if (i < text.length) throw new Error(`unbalanced "}" at ${i}`);
  return out;
}

const ORDINAL = { type: "ordinal" };

function render(parts, args, hashValue) {
  let out = "";
  for (const part of parts) {
    if (typeof part === "string") { out += part; continue; }
    if (part.hash) { out += hashValue === null ? "#" : numberFormat().format(hashValue); continue; }
    const value = args[part.arg];
    if (!part.options) {
      out += typeof value === "number" ? numberFormat().format(value) : value === undefined || value === null ? "" : String(value);
      continue;
    }
    if (part.type === "select") {
      const key = String(value);
      out += render(Object.hasOwn(part.options, key) ? part.options[key] : part.options.other, args, hashValue);
      continue;
    }
    const n = Number(value) - part.offset;
    const exact = `=${Number(value)}`;
    let chosen = part.options[exact];
    if (!chosen) {
      const rules = part.type === "selectordinal" ? pluralRules(ORDINAL) : pluralRules();
      chosen = part.options[rules.select(n)] || part.options.other;
    }
    out += render(chosen, args, n);
  }
  return out;
}
