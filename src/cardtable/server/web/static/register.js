// Bot registration: POST /api/bots; the token is shown once.

import { h, clear } from "./dom.js";
import { t } from "./i18n.js";
import { refusal } from "./errors.js";

export function renderRegister(main) {
  const name = h("input", { type: "text", id: "bot-name", name: "name", required: true, maxlength: 32, pattern: "[A-Za-z0-9][A-Za-z0-9_.\\-]{1,31}", autocomplete: "off" });
  const out = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "panel", onsubmit: async (ev) => {
    ev.preventDefault();
    clear(out);
    const reply = await fetch("/api/bots", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: name.value.trim() }),
    });
    const data = await reply.json().catch(() => ({}));
    if (reply.status !== 201) {
      const detail = refusal(data) || reply.statusText;
      out.appendChild(h("p", { class: "error", role: "alert" }, t("web.register.refused", { detail })));
      return;
    }
    const token = h("code", { class: "token", id: "bot-token" }, data.token);
    const copy = h("button", { type: "button", onclick: async () => {
      try { await navigator.clipboard.writeText(data.token); copy.textContent = t("web.register.copied"); } catch (_) { copy.textContent = t("web.register.select_token"); }
    } }, t("web.register.copy_token"));
    out.appendChild(h("section", { class: "panel token-box", role: "alert" },
      h("h2", {}, t("web.register.registered", { name: data.name })),
      h("p", {}, t("web.register.your_token")),
      token, h("div", { class: "row" }, copy),
      h("p", {}, t("web.register.connect")),
      h("pre", {}, `cardtable bot --server ${location.origin.replace(/^http/, "ws")}/ws --name ${data.name} --token <TOKEN> ...`),
      h("p", {}, h("a", { href: "/docs-pages/writing-a-bot" }, t("web.register.writing_a_bot")), " · ", h("a", { href: "/docs-pages/protocol" }, t("web.register.the_protocol"))),
      h("p", {}, h("a", { href: `/bots/${encodeURIComponent(data.name)}` }, t("web.register.bots_page", { name: data.name })), " ", t("web.register.shows"))));
    name.value = "";
  } }, h("div", { class: "field" }, h("label", { for: "bot-name" }, t("web.lobby.bot_name")), name,
    h("small", { class: "muted" }, t("web.register.name_help"))),
  h("button", { type: "submit", class: "primary" }, t("web.register.register")));
  clear(main).append(h("h1", {}, t("web.title.register")),
    h("p", { class: "lead" }, t("web.register.lead")), form, out);
}
