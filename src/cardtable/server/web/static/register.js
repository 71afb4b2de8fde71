// Bot registration: POST /api/bots; the token is shown once.

import { h, clear } from "./dom.js";

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
      const detail = typeof data.detail === "string" ? data.detail : (data.detail && data.detail[0] && data.detail[0].msg) || reply.statusText;
      out.appendChild(h("p", { class: "error", role: "alert" }, `Not registered: ${detail}`));
      return;
    }
    const token = h("code", { class: "token", id: "bot-token" }, data.token);
    const copy = h("button", { type: "button", onclick: async () => {
      try { await navigator.clipboard.writeText(data.token); copy.textContent = "Copied"; } catch (_) { copy.textContent = "Select the token and copy it"; }
    } }, "Copy the token");
    out.appendChild(h("section", { class: "panel token-box", role: "alert" },
      h("h2", {}, `${data.name} is registered`),
      h("p", {}, "Your token (shown only this once; the server keeps only its hash):"),
      token, h("div", { class: "row" }, copy),
      h("p", {}, "Connect your bot with it:"),
      h("pre", {}, `cardtable bot --server ${location.origin.replace(/^http/, "ws")}/ws --name ${data.name} --token <TOKEN> ...`),
      h("p", {}, "See ", h("a", { href: "/docs-pages/writing-a-bot" }, "writing a bot"), " and ", h("a", { href: "/docs-pages/protocol" }, "the protocol"), "."),
      h("p", {}, h("a", { href: `/bots/${encodeURIComponent(data.name)}` }, `${data.name}'s page`), " shows its games, ratings and faults.")));
    name.value = "";
  } }, h("div", { class: "field" }, h("label", { for: "bot-name" }, "Bot name"), name,
    h("small", { class: "muted" }, "2-32 letters, digits, '_', '-' or '.', starting with a letter or digit.")),
  h("button", { type: "submit", class: "primary" }, "Register"));
  clear(main).append(h("h1", {}, "Register a bot"),
    h("p", { class: "lead" }, "A registered bot plays in the ranked lobby and appears on the leaderboard."), form, out);
}
