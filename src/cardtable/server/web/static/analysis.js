// The expert's analysis in the replay viewer (issue #26): choose a seat, "Analyse" asks the server
// (POST /api/games/{id}/analysis?seat=N, a bounded background job), the panel shows its progress
// (GET polled), then
// - a value graph over the game (inline SVG): the seat's win chance after each of its searched
//   decisions, the expert's best beside it, mistakes as red dots (a dot moves the replay there);
// - marks on the move list at the seat's mistakes (class an-mistake, a "?" with the kind);
// - at the replay's current move, if it is one of the seat's decisions: every candidate the
//   expert valued, with win chance and score margin and their spread over the sampled worlds.
// - on the board (boardNote, drawn by replay.js above the board): at a searched decision the
//   answer given and the expert's better one, as lichess shows its best move on the board.
// The panel sits beside the board (below it on a phone, the graph first), so a dot moves the
// board without the page scrolling; the dots are 28 px buttons over the graph (touch targets).
// A done analysis is cached on the server: opening the replay again shows it at once.
// Owned by the analysis work (docs/analysis.md); replay.js only calls analysisPanel() and
// panel.update(position).

import { h, svg, clear, getJSON } from "./dom.js";
import { t, has, num, say } from "./i18n.js";

const POLL_MS = 500;

// numbers as the person writes them (Intl, in the page's language): a chance as a percentage
// with one decimal, a value with one decimal, a margin with its sign
const ONE = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
const PCT = { style: "percent", ...ONE };
const AXIS = { style: "percent", maximumFractionDigits: 0 };
const SIGNED = { signDisplay: "exceptZero", ...ONE };
const pct = (x) => num(x, PCT);
const axisPct = (x) => num(x, AXIS);
const one = (x) => num(x, ONE);
const signed = (x) => num(x, SIGNED);
/**
 * The analysis with its answers and mistake kinds in the person's words: the server sends each
 * in no language beside its English (`taken_words` beside `taken_label`, a candidate's `words`
 * beside its `label`, `mistake_words`, the summary's `kind_words`); an analysis stored before
 * it had words keeps its English.
 */
function worded(data) {
  for (const r of data.reviews) {
    r.taken_label = say(r.taken_words, r.taken_label);
    if (!r.searched) continue;
    for (const c of r.candidates) c.label = say(c.words, c.label);
    r.best_label = r.candidates[r.best_at].label;
    if (r.mistake_kind) r.mistake_kind = say(r.mistake_words, r.mistake_kind);
  }
  for (const sum of Object.values(data.summary)) {
    const words = sum.kind_words || {};
    sum.by_kind = Object.fromEntries(Object.entries(sum.by_kind).map(([kind, n]) => [say(words[kind], kind), n]));
  }
  return data;
}

/** A request kind (a code) in the person's words; the code itself for a kind the catalog lacks. */
const kindName = (kind) => (has(`web.analysis.kind.${kind}`) ? t(`web.analysis.kind.${kind}`) : kind);

/**
 * The panel. opts: {gameId, replay (GET /api/games/{id}/replay), show(position), moveButtons
 * (Map position -> the move's button), board (the board's box)}. Returns {element, decision (the candidates, shown under
 * the board), update(position), boardNote(position)}.
 */
export function analysisPanel({ gameId, replay, show, moveButtons, board = null }) {
  const names = replay.names;
  const base = `/api/games/${encodeURIComponent(gameId)}/analysis`;
  let position = 0;
  let result = null;
  let byIndex = new Map();
  let polling = null;
  let askedSeat = null;

  const seatSelect = h("select", { id: "an-seat" }, names.map((n, s) => h("option", { value: s }, t("web.analysis.seat_option", { seat: s, name: n }))));
  const button = h("button", { type: "button", class: "primary", "data-control": "analyse" }, t("web.analysis.analyse"));
  const status = h("p", { class: "an-status small", "aria-live": "polite" });
  const bar = h("progress", { class: "an-progress", max: 1, value: 0, hidden: true, "aria-label": t("web.analysis.progress_label") });
  const summaryBox = h("div", { class: "an-summary" });
  const graphBox = h("div", { class: "an-graph" });
  const decisionBox = h("div", { class: "an-decision", "aria-live": "polite" });
  const thresholdBox = h("p", { class: "small muted" });
  // compact beside the board: the heading and the form on one line, the graph, one line of
  // summary; the candidates and how the expert judges go under the board
  const element = h("section", { class: "panel analysis", "aria-labelledby": "an-h" },
    h("div", { class: "an-head" }, h("h2", { id: "an-h" }, t("web.analysis.title")),
      h("div", { class: "an-form" }, h("label", { for: "an-seat" }, t("web.analysis.seat"), " "), seatSelect, button)),
    bar, status, graphBox, summaryBox);
  const under = h("div", { class: "an-under" }, decisionBox,
    h("p", { class: "small muted" }, t("web.analysis.how"), " ", h("a", { href: "/docs-pages/analysis" }, t("web.analysis.how_link")), "."),
    thresholdBox);

  const seat = () => Number(seatSelect.value);
  /** The unit of a loss, named by the game (a code): win chance's points or round points. */
  const unit = () => t("web.analysis.unit", { game: result ? result.game : replay.game });

  function stopPolling() {
    if (polling) clearTimeout(polling);
    polling = null;
  }

  function showStatus(row) {
    if (row.status === "done") {
      bar.hidden = true;
      status.textContent = "";
      render(row.result);
      return true;
    }
    if (row.status === "failed") {
      bar.hidden = true;
      status.textContent = t("web.analysis.failed", { reason: row.error || t("web.analysis.unknown_reason") });
      status.className = "an-status small error";
      button.disabled = false;
      return true;
    }
    bar.hidden = false;
    bar.max = Math.max(1, row.total || 1);
    bar.value = row.done || 0;
    status.className = "an-status small";
    status.textContent = row.status === "queued"
      ? t("web.analysis.waiting")
      : row.total
        ? t("web.analysis.running", { done: row.done || 0, total: row.total })
        : t("web.analysis.running_start");
    element.dataset.state = "running";
    return false;
  }

  function poll(s) {
    stopPolling();
    polling = setTimeout(() => {
      getJSON(`${base}?seat=${s}`).then((row) => {
        if (askedSeat !== s) return;
        if (!showStatus(row)) poll(s);
      }).catch((err) => { status.textContent = t("web.analysis.read_failed", { error: err.message }); button.disabled = false; });
    }, POLL_MS);
  }

  async function start() {
    const s = seat();
    askedSeat = s;
    clearResult();
    button.disabled = true;
    status.className = "an-status small";
    status.textContent = t("web.analysis.asking");
    try {
      const reply = await fetch(`${base}?seat=${s}`, { method: "POST", headers: { Accept: "application/json" } });
      const row = await reply.json().catch(() => ({}));
      if (!reply.ok) {
        status.className = "an-status small error";
        status.textContent = row.detail || `${reply.status} ${reply.statusText}`;
        button.disabled = false;
        return;
      }
      if (!showStatus(row)) poll(s);
    } catch (err) {
      status.textContent = t("web.analysis.start_failed", { error: err.message });
      button.disabled = false;
    }
  }

  function clearResult() {
    const had = result !== null;
    result = null;
    byIndex = new Map();
    clear(summaryBox);
    clear(graphBox);
    clear(decisionBox);
    delete element.dataset.state;
    for (const b of moveButtons.values()) {
      b.classList.remove("an-mistake");
      for (const m of b.querySelectorAll(".an-mark")) m.remove();
    }
    if (had) show(position, { keepAddress: true }); // the expert's word leaves the board
  }

  function render(data) {
    result = worded(data);
    button.disabled = false;
    element.dataset.state = "done";
    const s = data.seats[0];
    const reviews = data.reviews.filter((r) => r.seat === s);
    byIndex = new Map(reviews.map((r) => [r.index, r]));
    const sum = data.summary[String(s)];
    const budget = data.budget.worlds
      ? t("web.analysis.budget_worlds", { n: data.budget.worlds })
      : t("web.analysis.budget_seconds", { seconds: data.budget.seconds });
    const kinds = Object.entries(sum.by_kind).map(([kind, n]) => `${num(n)} × ${kind}`).join(", ");
    clear(summaryBox).append(
      h("p", {}, h("strong", {}, t("web.analysis.summary_mistakes", { name: names[s], n: sum.mistakes })),
        " ", t("web.analysis.summary_searched", { n: sum.searched, rate: pct(sum.rate) }),
        kinds ? h("span", { class: "an-kinds" }, `: ${kinds}`) : null, "."));
    thresholdBox.textContent = [
      t("web.analysis.decisions_in_all", { n: sum.decisions, name: names[s] }),
      t("web.analysis.threshold", { loss: data.threshold.loss_at_least, unit: unit(), z: data.threshold.noise_z }),
      budget,
    ].join(" ");
    graphBox.replaceChildren(graph(reviews));
    for (const r of reviews) {
      if (!r.mistake) continue;
      const b = moveButtons.get(r.index + 1);
      if (!b) continue;
      b.classList.add("an-mistake");
      b.append(h("span", { class: "an-mark", title: t("web.analysis.mark_title", { kind: r.mistake_kind }) }, " ?"));
    }
    show(position, { keepAddress: true }); // the board again, with the expert's word on it
  }

  /** The value graph: win chance of the answer given (line), the best (dashed), mistakes. */
  function graph(reviews) {
    const pts = reviews.filter((r) => r.searched);
    const W = 600, H = 130, L = 42, R = 8, T = 8, B = 18;
    const last = Math.max(1, replay.frames.length - 1);
    const x = (step) => L + ((W - L - R) * step) / last;
    const y = (p) => T + (H - T - B) * (1 - p);
    const taken = pts.map((r) => [x(r.index + 1), y(r.candidates[r.taken_at].win)]);
    const best = pts.map((r) => [x(r.index + 1), y(r.candidates[r.best_at].win)]);
    const path = (list) => list.map(([px, py], i) => `${i ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`).join(" ");
    const grid = [0, 0.25, 0.5, 0.75, 1].flatMap((p) => [
      svg("line", { x1: L, x2: W - R, y1: y(p), y2: y(p), class: "an-grid" }),
      svg("text", { x: L - 4, y: y(p) + 4, class: "an-axis", "text-anchor": "end" }, axisPct(p)),
    ]);
    const cursor = svg("line", { x1: x(position), x2: x(position), y1: T, y2: H - B, class: "an-cursor" });
    // a mistake is a button over the graph, 28 px whatever the graph's scale (a finger's size:
    // the SVG's own circles were ~10 px on a phone), its dot drawn by CSS in the middle
    const dots = pts.filter((r) => r.mistake).map((r) => {
      const c = r.candidates[r.taken_at];
      return h("button", {
        type: "button", class: "an-dot", "data-step": r.index + 1,
        style: { left: `${(100 * x(r.index + 1)) / W}%`, top: `${(100 * y(c.win)) / H}%` },
        "aria-label": t("web.analysis.dot_label", { move: r.index + 1, kind: r.mistake_kind }),
        title: t("web.analysis.dot_title", { move: r.index + 1, answer: r.taken_label, kind: r.mistake_kind }),
        onclick: () => { show(r.index + 1); boardInView(); },
      });
    });
    const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "an-chart", role: "group",
      "aria-label": t("web.analysis.chart_label", { name: names[result.seats[0]], n: dots.length }) },
    grid,
    svg("text", { x: W - R, y: H - 4, class: "an-axis", "text-anchor": "end" }, t("web.analysis.axis_move")),
    svg("path", { d: path(best), class: "an-best" }),
    svg("path", { d: path(taken), class: "an-line" }),
    cursor);
    chart.addEventListener("click", (ev) => {
      const box = chart.getBoundingClientRect();
      const sx = ((ev.clientX - box.left) / box.width) * W;
      const step = Math.round(((sx - L) / (W - L - R)) * last);
      if (step >= 0 && step <= last) show(step);
    });
    graphBox.cursor = { el: cursor, x };
    return h("figure", {}, h("div", { class: "an-plot" }, chart, dots),
      h("figcaption", { class: "small muted" }, t("web.analysis.key_title"), h("span", { class: "an-key an-key-line" }), " ", t("web.analysis.key_given"),
        h("span", { class: "an-key an-key-best" }), " ", t("web.analysis.key_best"), h("span", { class: "an-key an-key-dot" }), " ", t("web.analysis.key_mistake")));
  }

  /** The replay moved to `pos` (moves played): the candidates of the seat's decision there. */
  function update(pos) {
    position = pos;
    if (graphBox.cursor) {
      const cx = graphBox.cursor.x(pos);
      graphBox.cursor.el.setAttribute("x1", cx);
      graphBox.cursor.el.setAttribute("x2", cx);
    }
    if (!result) return;
    const r = byIndex.get(pos - 1);
    if (!r) {
      const s = result.seats[0];
      const nextOne = [...byIndex.keys()].find((i) => i + 1 > pos);
      clear(decisionBox).append(h("p", { class: "small muted" }, t("web.analysis.not_a_decision", { move: pos, name: names[s] }), " ",
        nextOne !== undefined ? h("button", { type: "button", class: "link", onclick: () => show(nextOne + 1) }, t("web.analysis.next_decision", { move: nextOne + 1 })) : null));
      return;
    }
    const head = h("p", {}, h("strong", {}, t("web.analysis.decision_head", { move: pos, number: r.number, kind: kindName(r.kind) }), " "), r.taken_label);
    if (!r.searched) {
      clear(decisionBox).append(head, h("p", { class: "small muted" }, t("web.analysis.not_searched")));
      return;
    }
    const order = r.candidates.map((c, i) => i).sort((a, b) => r.candidates[b].utility - r.candidates[a].utility);
    const rows = order.map((i) => {
      const c = r.candidates[i];
      const marks = [i === r.best_at ? t("web.analysis.tag_best") : "", i === r.taken_at ? t("web.analysis.tag_given") : ""].filter(Boolean).join(", ");
      return h("tr", { class: `${i === r.best_at ? "an-is-best" : ""} ${i === r.taken_at ? "an-is-taken" : ""}` },
        h("td", { "data-label": t("web.analysis.answer") }, c.label, marks ? h("span", { class: "an-tag" }, ` (${marks})`) : null),
        h("td", { "data-label": t("web.analysis.win_chance"), class: "num" }, `${pct(c.win)} ± ${one(100 * c.win_se)}`),
        h("td", { "data-label": t("web.analysis.margin_short"), class: "num" }, `${signed(c.margin)} ± ${one(c.margin_se)}`));
    });
    const verdict = r.best_at === r.taken_at
      ? h("p", { class: "an-verdict good" }, t("web.analysis.agrees"))
      : h("p", { class: `an-verdict ${r.mistake ? "bad" : ""}` }, r.mistake ? t("web.analysis.mistake", { kind: r.mistake_kind }) : t("web.analysis.not_clear"), " ",
        t("web.analysis.prefers", { best: r.best_label, loss: one(r.loss), se: one(r.loss_se), unit: unit() }));
    clear(decisionBox).append(head, verdict,
      h("div", { class: "table-wrap" }, h("table", { class: "an-candidates" },
        h("caption", { class: "sr-only" }, t("web.analysis.candidates_caption")),
        h("thead", {}, h("tr", {}, ["answer", "win_chance", "margin"].map((k) => h("th", { scope: "col" }, t(`web.analysis.${k}`))))),
        h("tbody", {}, rows))));
  }

  /** After a tap on the graph: if the board's top is out of view (a phone: the board lies under
   * the graph), the graph goes to the top of the screen with the board under it. */
  function boardInView() {
    if (!board) return;
    const top = board.getBoundingClientRect().top;
    if (top >= 0 && top < innerHeight - 150) return;
    scrollBy(0, graphBox.getBoundingClientRect().top - 6);
  }

  /** What the expert says about the move that led to `pos`, for the top of the board; null. */
  function boardNote(pos) {
    const r = result && byIndex.get(pos - 1);
    if (!r || !r.searched) return null;
    const taken = r.candidates[r.taken_at], best = r.candidates[r.best_at];
    if (r.best_at === r.taken_at) {
      return h("p", { class: "an-on-board good", "data-best": r.best_label }, t("web.analysis.board_agrees", { name: names[result.seats[0]], answer: r.taken_label }));
    }
    return h("div", { class: `an-on-board${r.mistake ? " bad" : ""}`, "data-best": r.best_label },
      h("p", {}, r.mistake ? `${t("web.analysis.mistake", { kind: r.mistake_kind })} ` : "",
        t("web.analysis.board_taken", { name: names[result.seats[0]], answer: r.taken_label, win: pct(taken.win) })),
      h("p", { class: "an-better" }, t("web.analysis.board_better"), " ", h("strong", {}, r.best_label), " ",
        t("web.analysis.board_better_win", { win: pct(best.win) })));
  }

  button.addEventListener("click", start);
  seatSelect.addEventListener("change", () => {
    stopPolling();
    clearResult();
    status.textContent = "";
    bar.hidden = true;
    askedSeat = seat();
    loadCached(seat());
  });

  /** A cached (or running) analysis of the seat is shown without asking for a new one. */
  function loadCached(s) {
    // cached=true: none yet is a 204, not a 404 (an error in the console on every replay)
    fetch(`${base}?seat=${s}&cached=true`, { headers: { Accept: "application/json" } })
      .then((reply) => (reply.ok && reply.status !== 204 ? reply.json() : null))
      .then((row) => {
        if (!row || askedSeat !== s) return;
        if (row.status === "failed") return;
        button.disabled = row.status !== "done";
        if (!showStatus(row)) poll(s);
      })
      .catch(() => {});
  }
  // /replay/{id}?seat=N (a seat's view, a bot page's link): that seat is the one analysed
  const wanted = new URLSearchParams(location.search).get("seat");
  if (wanted !== null && /^\d+$/.test(wanted) && Number(wanted) < names.length) seatSelect.value = wanted;
  askedSeat = seat();
  loadCached(seat());

  return { element, decision: under, update, boardNote };
}
