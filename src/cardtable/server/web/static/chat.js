// Table chat on the seat's page (/table/{id}): the lines said at the table, preset quick
// messages as buttons (for phones), a line to type, mute a person (for this viewer only,
// remembered for the table in localStorage) and report a line to the server's operator.
//
// The server sends `chat` messages only to seats that hear chat (people; never spectators, so
// the watch page has none). Every text goes into the page as text (dom.js h(): textContent),
// never as HTML. Presets are codes on the wire; their words are the catalog's web.chat.preset.*.

import { h, clear, toast } from "./dom.js";
import { refusal } from "./errors.js";
import { session } from "./session.js";
import { t } from "./i18n.js";

export const PRESET_CODES = ["hello", "good_luck", "gg", "well_played", "thanks", "oops", "sorry"];
const presetWords = (code) => (PRESET_CODES.includes(code) ? t(`web.chat.preset.${code}`) : code);
const MAX_CHARS = 200;
const LINES = 200;
export const CHAT_ERRORS = new Set(["chat_off", "chat_too_long", "chat_rate", "bad_chat"]);
const muteKey = (gameId) => `cardtable.chat.muted.${gameId}`;

function loadMuted(gameId) {
  try {
    const seats = JSON.parse(localStorage.getItem(muteKey(gameId)) || "[]");
    return new Set(Array.isArray(seats) ? seats.filter((s) => Number.isInteger(s)) : []);
  } catch (_) { return new Set(); }
}

function clock(at) {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/**
 * The chat panel of game `gameId`: `el` (hidden while the table has no chat for this seat) and
 * `stop()` (for the page's cleanups).
 */
export function chatPanel(gameId) {
  const muted = loadMuted(gameId);
  const reported = new Set();
  const list = h("ol", { class: "chat-lines", "aria-label": t("web.chat.title") });
  const errorEl = h("p", { class: "chat-error", role: "alert" });
  const mutedEl = h("p", { class: "chat-muted small" });
  const input = h("input", {
    type: "text", id: `chat-input-${gameId}`, autocomplete: "off", enterkeyhint: "send",
    placeholder: t("web.chat.placeholder"), "aria-describedby": `chat-count-${gameId}`,
  });
  const count = h("span", { class: "chat-count small muted", id: `chat-count-${gameId}` }, `0/${MAX_CHARS}`);
  const presets = h("div", { class: "chat-presets", role: "group", "aria-label": t("web.chat.quick") },
    PRESET_CODES.map((code) => [code, presetWords(code)]).map(([code, words]) => h("button", {
      type: "button", "data-preset": code, onclick: () => send({ preset: code }),
    }, words)));
  const form = h("form", { class: "chat-form", onsubmit: (ev) => {
    ev.preventDefault();
    if (input.value.trim()) send({ text: input.value });
  } },
  h("label", { for: input.id, class: "sr-only" }, t("web.chat.message")), input, count,
  h("button", { type: "submit" }, t("web.chat.send")));
  const el = h("section", { class: "chat-box", "aria-labelledby": `chat-h-${gameId}`, hidden: true },
    // the lines' box is a log (new lines are read out politely); the list keeps its list role
    h("h2", { id: `chat-h-${gameId}` }, t("web.chat.title")), h("div", { role: "log", "aria-label": t("web.chat.lines") }, list),
    errorEl, presets, form, mutedEl);
  let sent = null; // the text sent last (cleared when it comes back)
  // a line from someone else while the chat is out of view (a phone deciding above it): a small
  // note at the bottom of the screen says so; a tap brings the chat into view
  const notice = h("button", { type: "button", class: "chat-new", hidden: true, onclick: () => {
    notice.hidden = true;
    el.scrollIntoView({ block: "nearest" });
    input.focus({ preventScroll: true });
  } });
  let inView = true;
  const watcher = typeof IntersectionObserver === "function" ? new IntersectionObserver((entries) => {
    inView = entries.some((e) => e.isIntersecting);
    if (inView) notice.hidden = true;
  }) : null;
  if (watcher) watcher.observe(list);
  document.body.appendChild(notice);

  input.addEventListener("input", () => {
    const n = input.value.normalize("NFKC").trim().length;
    count.textContent = `${n}/${MAX_CHARS}`;
    count.classList.toggle("over", n > MAX_CHARS);
  });

  function send(what) {
    errorEl.textContent = "";
    try {
      session.send({ type: "chat", game_id: gameId, ...what });
      if (what.text !== undefined) sent = what.text;
    } catch (err) {
      errorEl.textContent = err.message;
    }
  }

  function store() { return session.games.get(gameId); }

  function mySeat() {
    const s = store();
    return s && s.start ? s.start.seat : null;
  }

  function saveMuted() {
    localStorage.setItem(muteKey(gameId), JSON.stringify([...muted]));
  }

  function line(msg, me) {
    const words = msg.preset !== undefined ? presetWords(msg.preset) : msg.text;
    const mine = msg.seat === me;
    const tools = mine ? null : h("span", { class: "chat-tools" },
      h("button", {
        type: "button", class: "link", "data-mute": String(msg.seat), "aria-label": t("web.chat.mute_label", { name: msg.from }),
        onclick: () => { muted.add(msg.seat); saveMuted(); draw(); },
      }, t("web.chat.mute")),
      h("button", {
        type: "button", class: "link", "data-report": String(msg.id), disabled: reported.has(msg.id),
        "aria-label": t("web.chat.report_label", { name: msg.from }),
        onclick: (ev) => {
          ev.currentTarget.disabled = true;
          try { session.send({ type: "chat_report", game_id: gameId, id: msg.id }); }
          catch (err) { errorEl.textContent = err.message; ev.currentTarget.disabled = false; }
        },
      }, reported.has(msg.id) ? t("web.chat.reported") : t("web.chat.report")));
    return h("li", { class: `chat-line${mine ? " mine" : ""}${msg.preset !== undefined ? " preset" : ""}`, "data-seat": String(msg.seat), "data-id": String(msg.id) },
      h("time", { class: "small muted", datetime: new Date(msg.at).toISOString() }, clock(msg.at)), " ",
      h("strong", { class: "chat-from" }, msg.from), ": ",
      h("span", { class: "chat-text" }, words), tools);
  }

  function draw() {
    const s = store();
    const on = !!(s && s.start && s.start.chat);
    el.hidden = !on;
    if (!on) return;
    const me = mySeat();
    const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 20;
    const shown = (s.chat || []).filter((m) => !muted.has(m.seat)).slice(-LINES);
    clear(list).append(...(shown.length ? shown.map((m) => line(m, me))
      : [h("li", { class: "muted small" }, t("web.chat.empty"))]));
    if (stick) list.scrollTop = list.scrollHeight;
    clear(mutedEl);
    const names = s.start.names || [];
    for (const seat of muted) {
      mutedEl.append(h("span", { class: "chat-muted-one" }, `${t("web.chat.is_muted", { name: names[seat] || `#${seat + 1}` })} `,
        h("button", { type: "button", class: "link", "data-unmute": String(seat), onclick: () => { muted.delete(seat); saveMuted(); draw(); } }, t("web.chat.unmute"))), " ");
    }
    mutedEl.hidden = muted.size === 0;
    const over = !!(s.end);
    input.disabled = over;
    for (const b of presets.querySelectorAll("button")) b.disabled = over;
  }

  const off = session.on((kind, data) => {
    if (kind === "chat" && data.message.game_id === gameId) {
      const m = data.message;
      if (!inView && m.seat !== mySeat() && !muted.has(m.seat)) {
        const words = m.preset !== undefined ? presetWords(m.preset) : m.text;
        notice.textContent = t("web.chat.new_line", { name: m.from, words: words.length > 60 ? `${words.slice(0, 60)}…` : words });
        notice.hidden = false;
      }
      if (data.message.seat === mySeat() && data.message.text !== undefined && sent !== null) {
        input.value = ""; // our line came back: the field is free again
        input.dispatchEvent(new Event("input"));
        sent = null;
      }
      draw();
    } else if (kind === "chat_reported" && data.game_id === gameId) {
      reported.add(data.id);
      toast(t("web.chat.reported_toast"));
      draw();
    } else if (kind === "error" && CHAT_ERRORS.has(data.code)) {
      errorEl.textContent = t("web.chat.not_sent", { why: refusal(data) });
      draw();
    } else if (kind === "game_start") {
      draw();
    } else if (kind === "game") {
      // not on every event: only when chat comes or goes (the start, the end)
      const s = store();
      const on = !!(s && s.start && s.start.chat);
      if (on === el.hidden || (on && s.end && !input.disabled)) draw();
    }
  });
  draw();
  const stop = () => {
    off();
    if (watcher) watcher.disconnect();
    notice.remove();
  };
  return { el, draw, stop };
}
