// The replay viewer: an ended game step by step (GET /api/games/{id}/replay re-simulates the
// record on the server). The game is over, so every seat's notes or hand are shown.

import { h, clear, getJSON } from "./dom.js";
import { describe } from "./describe.js";
import * as KH from "./kuhhandel.js";
import * as CU from "./cunegonda.js";

const SPEEDS = [0.5, 1, 2, 4, 8, 16];

export function renderReplayList(main) {
  clear(main).append(h("h1", {}, "Replays"), h("p", { class: "muted" }, "Loading…"));
  getJSON("/api/games?limit=100").then(({ games }) => {
    const ended = games.filter((g) => g.status !== "running");
    const running = games.filter((g) => g.status === "running");
    clear(main).append(h("h1", {}, "Replays"),
      running.length ? h("p", {}, `${running.length} running: `, running.map((g, i) => [i ? ", " : "", h("a", { href: `/watch/${g.id}` }, `watch ${g.names.join(" / ")}`)])) : null,
      ended.length ? h("div", { class: "table-wrap" }, h("table", { class: "games" },
        h("thead", {}, h("tr", {}, ["Game", "Rules", "Players", "Ended", "Result", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, ended.map((g) => h("tr", {},
          h("td", {}, g.game), h("td", {}, g.rules || "custom"), h("td", {}, g.names.join(", ")),
          h("td", {}, g.ended_at ? new Date(g.ended_at).toLocaleString() : ""),
          h("td", {}, g.result ? winners(g) : g.status),
          h("td", {}, h("a", { href: `/replay/${g.id}`, class: "button" }, "Replay")))))))
        : h("p", {}, "No finished game yet."));
  }).catch((err) => clear(main).append(h("h1", {}, "Replays"), h("p", { class: "error" }, err.message)));
}

function actionWords(action) {
  if (!action || typeof action !== "object") return String(action);
  const { kind, ...rest } = action;
  const extra = Object.entries(rest).map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(", ") : v}`).join(", ");
  return kind ? `${kind.replace(/_/g, " ")}${extra ? ` (${extra})` : ""}` : extra;
}

function winners(g) {
  const best = g.names.filter((_, s) => g.result.places[s] === 0);
  return `${g.result.termination}: ${best.join(" & ")} won`;
}

export function renderReplay(main, gameId) {
  let timer = null;
  clear(main).append(h("h1", {}, "Replay"), h("p", { class: "muted" }, "Loading the record…"));
  const stop = () => { if (timer) clearInterval(timer); timer = null; };
  Promise.all([getJSON(`/api/games/${encodeURIComponent(gameId)}`), getJSON(`/api/games/${encodeURIComponent(gameId)}/replay`)])
    .then(([detail, replay]) => build(detail, replay))
    .catch((err) => clear(main).append(h("h1", {}, "Replay"), h("p", { class: "error" }, `No replay: ${err.message}`),
      h("p", {}, "A game can be replayed once it is over. ", h("a", { href: `/watch/${gameId}` }, "Watch it live"), " · ", h("a", { href: "/replay" }, "all replays"))));

  function build(detail, replay) {
    const names = replay.names;
    const frames = replay.frames;
    const last = frames.length - 1;
    const mod = replay.game === "cunegonda" ? CU : KH;
    let index = 0;
    let speed = 1;
    const lines = [];
    frames.forEach((f, i) => {
      for (const ev of f.events) {
        const text = describe(replay.game, ev, names);
        if (text) lines.push({ step: i, text, private: ev.to !== null });
      }
    });
    const boardBox = h("div", { class: "board-col" });
    const logBox = h("ol", { class: "log", role: "log", "aria-label": "What happened up to this step" });
    const stepText = h("p", { class: "step", "aria-live": "polite" });
    const scrub = h("input", { type: "range", min: 0, max: last, value: 0, id: "scrub", "aria-label": "Step" });
    const playButton = h("button", { type: "button", class: "primary", "aria-label": "Play", "data-control": "play" }, "▶ Play");
    const speedSelect = h("select", { id: "speed", "aria-label": "Speed" }, SPEEDS.map((s) => h("option", { value: s, selected: s === 1 }, `${s}×`)));

    const show = (i) => {
      index = Math.max(0, Math.min(last, i));
      scrub.value = String(index);
      const f = frames[index];
      const ctx = { names, me: null, rules: replay.rules, seats: null };
      if (replay.game === "cunegonda") ctx.revealed = f.private.map((p) => p.hand || []);
      else ctx.revealed = f.private.map((p) => p.wallet || []);
      clear(boardBox).appendChild(mod.renderBoard(f.public, ctx));
      if (index === last && replay.result) {
        boardBox.prepend(h("section", { class: "panel result" }, h("h2", {}, "Result"),
          KH.scoreTable(replay.game === "kuhhandel" ? replay.result : { ...replay.result, details: null }, names)));
      }
      const said = f.events.map((ev) => describe(replay.game, ev, names)).filter((t) => t && !t.startsWith("("));
      const actor = f.seat === null ? "The game begins." : said.length ? said.join(" ") : `${names[f.seat]}: ${actionWords(f.action)}`;
      stepText.textContent = `Step ${index} of ${last}. ${actor}`;
      clear(logBox).append(...lines.filter((l) => l.step <= index).slice(-300).map((l) =>
        h("li", { class: `${l.step === index ? "now" : ""}${l.private ? " private" : ""}` }, l.text)));
      logBox.scrollTop = logBox.scrollHeight;
    };
    const play = () => {
      if (timer) { stop(); playButton.textContent = "▶ Play"; playButton.setAttribute("aria-label", "Play"); return; }
      if (index >= last) show(0);
      playButton.textContent = "‖ Pause";
      playButton.setAttribute("aria-label", "Pause");
      timer = setInterval(() => {
        if (index >= last) { stop(); playButton.textContent = "▶ Play"; playButton.setAttribute("aria-label", "Play"); return; }
        show(index + 1);
      }, 500 / speed);
    };
    scrub.addEventListener("input", () => show(Number(scrub.value)));
    speedSelect.addEventListener("change", () => {
      speed = Number(speedSelect.value);
      if (timer) { stop(); play(); }
    });
    playButton.addEventListener("click", play);
    const ctl = (label, text, fn, key) => h("button", { type: "button", "aria-label": label, "data-control": key, onclick: fn }, text);
    const controls = h("div", { class: "replay-controls", role: "toolbar", "aria-label": "Replay controls" },
      ctl("First step", "« First", () => show(0), "first"), ctl("Step back", "‹ Back", () => show(index - 1), "back"),
      playButton, ctl("Step forward", "Next ›", () => show(index + 1), "forward"), ctl("Last step", "Last »", () => show(last), "last"),
      h("label", { for: "scrub", class: "sr-only" }, "Step"), scrub, h("label", { for: "speed" }, "Speed "), speedSelect);
    const keys = (ev) => {
      if (ev.target.closest("input, select, textarea")) return;
      if (ev.key === "ArrowRight") { show(index + 1); ev.preventDefault(); }
      if (ev.key === "ArrowLeft") { show(index - 1); ev.preventDefault(); }
      if (ev.key === " " && !ev.target.closest("button")) { play(); ev.preventDefault(); }
    };
    document.addEventListener("keydown", keys);
    cleanupKeys = () => document.removeEventListener("keydown", keys);
    const title = `${replay.game === "cunegonda" ? "Cunegonda" : "Kuhhandel"} · ${(replay.meta && replay.meta.rules_name) || detail.rules || "custom rules"}`;
    clear(main).appendChild(h("section", { class: "table-page replay" },
      h("div", { class: "table-head" }, h("h1", {}, `Replay: ${title}`),
        h("p", { class: "small muted" }, `${names.join(", ")} · ${detail.status}${detail.ended_at ? " · " + new Date(detail.ended_at).toLocaleString() : ""}. The game is over: every seat's notes and cards are shown.`),
        controls, stepText),
      h("div", { class: "layout" }, h("div", { class: "main-col" }, boardBox), h("div", { class: "side-col" }, h("div", { class: "log-box" }, h("h2", {}, "Log"), logBox)))));
    show(0);
  }
  let cleanupKeys = () => {};
  return () => { stop(); cleanupKeys(); };
}
