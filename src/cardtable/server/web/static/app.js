// The single-page app: a tiny router over the page routes the server serves (see
// cardtable/server/web/__init__.py). Moving between pages keeps the WebSocket open, so a person
// walking from the lobby to the table never leaves the seat.

import { clear, h } from "./dom.js";
import { session } from "./session.js";
import { renderLobby } from "./lobby.js";
import { renderSeat, renderWatch } from "./table.js";
import { renderReplay, renderReplayList } from "./replay.js";
import { renderLeaderboard } from "./leaderboard.js";
import { renderRegister } from "./register.js";
import { renderDocs } from "./docs.js";
import { renderBotPage } from "./botpage.js";
import { renderSignIn, account } from "./account.js";
import { loadLanguage, languages, lang, setLanguage, t } from "./i18n.js";

const ROUTES = [
  [/^\/$/, (main) => renderLobby(main, navigate), "web.title.lobby"],
  [/^\/table\/([\w-]+)$/, (main, id) => renderSeat(main, id, navigate), "web.title.table"],
  [/^\/watch\/([\w-]+)$/, (main, id) => renderWatch(main, id), "web.title.watching"],
  [/^\/replay\/?$/, (main) => renderReplayList(main), "web.title.replays"],
  [/^\/replay\/([\w-]+)$/, (main, id) => renderReplay(main, id), "web.title.replay"],
  [/^\/leaderboard\/?$/, (main) => renderLeaderboard(main), "web.title.leaderboard"],
  [/^\/bots\/([\w.-]+)\/?$/, (main, name) => renderBotPage(main, name), "web.title.bot"],
  [/^\/players\/([^/]+)\/?$/, (main, name) => renderBotPage(main, name), "web.title.profile"],
  [/^\/signin\/?$/, (main) => renderSignIn(main, navigate), "web.title.signin"],
  [/^\/register\/?$/, (main) => renderRegister(main), "web.title.register"],
  [/^\/docs-pages(?:\/([\w-]+))?\/?$/, (main, name) => renderDocs(main, name), "web.title.docs"],
];

let cleanup = null;

function route() {
  const main = document.getElementById("main");
  if (cleanup) { try { cleanup(); } catch (err) { console.error(err); } cleanup = null; }
  const path = location.pathname;
  for (const [pattern, render, title] of ROUTES) {
    const m = path.match(pattern);
    if (m) {
      document.title = `${t(title)} · cardtable`;
      cleanup = render(main, ...m.slice(1).map((x) => (x === undefined ? undefined : decodeURIComponent(x)))) || null;
      markNav(path);
      return;
    }
  }
  clear(main).appendChild(h("p", {}, t("web.page.missing"), " ", h("a", { href: "/" }, t("web.page.back_to_lobby"))));
}

function markNav(path) {
  for (const a of document.querySelectorAll("header nav a")) {
    const href = a.getAttribute("href");
    const here = href === "/" ? path === "/" : path.startsWith(href);
    if (here) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
}

export function navigate(path, { replace = false } = {}) {
  if (path === location.pathname) { route(); return; }
  if (replace) history.replaceState({}, "", path); else history.pushState({}, "", path);
  route();
  // the new page's heading region takes the focus, unless the page focused a control itself
  const main = document.getElementById("main");
  if (main && !main.contains(document.activeElement)) main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

// same-origin links to our pages navigate in place (the WebSocket stays open)
document.addEventListener("click", (ev) => {
  if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  const a = ev.target.closest("a[href]");
  if (!a || a.target || a.hasAttribute("download")) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/static/") || url.pathname === "/docs") return;
  if (!ROUTES.some(([p]) => p.test(url.pathname))) return;
  ev.preventDefault();
  navigate(url.pathname + url.search);
});

window.addEventListener("popstate", route);

function showWho() {
  const el = document.getElementById("who");
  if (!el) return;
  el.textContent = session.connected ? (session.you.kind === "bot" ? t("web.nav.who_bot", { name: session.you.name }) : session.you.name) : "";
  showAccountLink();
}

// the header's account link: "Sign in", or the signed-in person's name linking to the account
function showAccountLink() {
  const link = document.getElementById("account-link");
  if (!link) return;
  account(true).then((me) => {
    link.textContent = me.signed_in ? t("web.nav.account", { name: me.name }) : t("web.nav.signin");
    link.setAttribute("href", "/signin");
  });
}
// the language switcher in the header, on every page
function showSwitcher() {
  const select = document.getElementById("lang-switch");
  if (!select) return;
  clear(select);
  for (const [code, name] of languages) select.appendChild(h("option", { value: code, lang: code, selected: code === lang }, name));
  select.addEventListener("change", () => setLanguage(select.value));
}

await loadLanguage();
showSwitcher();
showAccountLink();
document.addEventListener("cardtable:account", showAccountLink);
session.on((kind) => { if (kind === "welcome" || kind === "closed") showWho(); });

route();
// the language is loaded and the first page drawn (tests that mount parts of pages wait for it)
document.documentElement.dataset.ready = "1";
