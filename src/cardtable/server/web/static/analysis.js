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

const POLL_MS = 500;

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const signed = (x) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`;

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

  const seatSelect = h("select", { id: "an-seat" }, names.map((n, s) => h("option", { value: s }, `seat ${s}: ${n}`)));
  const button = h("button", { type: "button", class: "primary", "data-control": "analyse" }, "Analyse");
  const status = h("p", { class: "an-status small", "aria-live": "polite" });
  const bar = h("progress", { class: "an-progress", max: 1, value: 0, hidden: true, "aria-label": "Analysis progress" });
  const summaryBox = h("div", { class: "an-summary" });
  const graphBox = h("div", { class: "an-graph" });
  const decisionBox = h("div", { class: "an-decision", "aria-live": "polite" });
  const thresholdBox = h("p", { class: "small muted" });
  // compact beside the board: the heading and the form on one line, the graph, one line of
  // summary; the candidates and how the expert judges go under the board
  const element = h("section", { class: "panel analysis", "aria-labelledby": "an-h" },
    h("div", { class: "an-head" }, h("h2", { id: "an-h" }, "Expert analysis"),
      h("div", { class: "an-form" }, h("label", { for: "an-seat" }, "Seat "), seatSelect, button)),
    bar, status, graphBox, summaryBox);
  const under = h("div", { class: "an-under" }, decisionBox,
    h("p", { class: "small muted" }, "The expert searches every decision of one seat from that seat's view only (what it could see then), values each answer it considers and the one given, and marks the clear mistakes. ", h("a", { href: "/docs-pages/analysis" }, "How it works"), "."),
    thresholdBox);

  const seat = () => Number(seatSelect.value);

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
      status.textContent = `The analysis failed: ${row.error || "unknown reason"}.`;
      status.className = "an-status small error";
      button.disabled = false;
      return true;
    }
    bar.hidden = false;
    bar.max = Math.max(1, row.total || 1);
    bar.value = row.done || 0;
    status.className = "an-status small";
    status.textContent = row.status === "queued"
      ? "Waiting for the analysis worker…"
      : `Analysing… ${row.done} of ${row.total || "?"} decisions`;
    element.dataset.state = "running";
    return false;
  }

  function poll(s) {
    stopPolling();
    polling = setTimeout(() => {
      getJSON(`${base}?seat=${s}`).then((row) => {
        if (askedSeat !== s) return;
        if (!showStatus(row)) poll(s);
      }).catch((err) => { status.textContent = `Could not read the analysis: ${err.message}`; button.disabled = false; });
    }, POLL_MS);
  }

  async function start() {
    const s = seat();
    askedSeat = s;
    clearResult();
    button.disabled = true;
    status.className = "an-status small";
    status.textContent = "Asking the server…";
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
      status.textContent = `Could not start the analysis: ${err.message}`;
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
    result = data;
    button.disabled = false;
    element.dataset.state = "done";
    const s = data.seats[0];
    const reviews = data.reviews.filter((r) => r.seat === s);
    byIndex = new Map(reviews.map((r) => [r.index, r]));
    const sum = data.summary[String(s)];
    const budget = data.budget.worlds ? `${data.budget.worlds} worlds per decision` : `${data.budget.seconds} s per decision`;
    const kinds = Object.entries(sum.by_kind).map(([kind, n]) => `${n} × ${kind}`).join(", ");
    clear(summaryBox).append(
      h("p", {}, h("strong", {}, `${names[s]}: ${sum.mistakes} ${sum.mistakes === 1 ? "mistake" : "mistakes"}`),
        ` in ${sum.searched} searched decisions (${(100 * sum.rate).toFixed(1)}%)`,
        kinds ? h("span", { class: "an-kinds" }, `: ${kinds}`) : null, "."));
    thresholdBox.textContent = `${sum.decisions} decisions of ${names[s]} in all. ${data.threshold.words.replace(/^a/, "A")}. ${budget}.`;
    graphBox.replaceChildren(graph(reviews));
    for (const r of reviews) {
      if (!r.mistake) continue;
      const b = moveButtons.get(r.index + 1);
      if (!b) continue;
      b.classList.add("an-mistake");
      b.append(h("span", { class: "an-mark", title: `Mistake: ${r.mistake_kind}` }, " ?"));
    }
    show(position, { keepAddress: true }); // the board again, with the expert's word on it
  }

  /** The value graph: win chance of the answer given (line), the best (dashed), mistakes. */
  function graph(reviews) {
    const pts = reviews.filter((r) => r.searched);
    const W = 600, H = 130, L = 34, R = 8, T = 8, B = 18;
    const last = Math.max(1, replay.frames.length - 1);
    const x = (step) => L + ((W - L - R) * step) / last;
    const y = (p) => T + (H - T - B) * (1 - p);
    const taken = pts.map((r) => [x(r.index + 1), y(r.candidates[r.taken_at].win)]);
    const best = pts.map((r) => [x(r.index + 1), y(r.candidates[r.best_at].win)]);
    const path = (list) => list.map(([px, py], i) => `${i ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`).join(" ");
    const grid = [0, 0.25, 0.5, 0.75, 1].flatMap((p) => [
      svg("line", { x1: L, x2: W - R, y1: y(p), y2: y(p), class: "an-grid" }),
      svg("text", { x: L - 4, y: y(p) + 4, class: "an-axis", "text-anchor": "end" }, `${100 * p}%`),
    ]);
    const cursor = svg("line", { x1: x(position), x2: x(position), y1: T, y2: H - B, class: "an-cursor" });
    // a mistake is a button over the graph, 28 px whatever the graph's scale (a finger's size:
    // the SVG's own circles were ~10 px on a phone), its dot drawn by CSS in the middle
    const dots = pts.filter((r) => r.mistake).map((r) => {
      const c = r.candidates[r.taken_at];
      return h("button", {
        type: "button", class: "an-dot", "data-step": r.index + 1,
        style: { left: `${(100 * x(r.index + 1)) / W}%`, top: `${(100 * y(c.win)) / H}%` },
        "aria-label": `Mistake at move ${r.index + 1}: ${r.mistake_kind}`,
        title: `Move ${r.index + 1}: ${r.taken_label} — ${r.mistake_kind}`,
        onclick: () => { show(r.index + 1); boardInView(); },
      });
    });
    const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "an-chart", role: "group",
      "aria-label": `Win chance of ${names[result.seats[0]]} after each searched decision, ${dots.length} mistakes marked` },
    grid,
    svg("text", { x: W - R, y: H - 4, class: "an-axis", "text-anchor": "end" }, "move →"),
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
      h("figcaption", { class: "small muted" }, "Win chance:", h("span", { class: "an-key an-key-line" }), " given",
        h("span", { class: "an-key an-key-best" }), " expert's best", h("span", { class: "an-key an-key-dot" }), " mistake (tap it)"));
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
      clear(decisionBox).append(h("p", { class: "small muted" }, `Move ${pos} is not a decision of ${names[s]}. `,
        nextOne !== undefined ? h("button", { type: "button", class: "link", onclick: () => show(nextOne + 1) }, `Its next decision: move ${nextOne + 1}`) : null));
      return;
    }
    const head = h("p", {}, h("strong", {}, `Move ${pos}, decision ${r.number} (${r.kind}): `), r.taken_label);
    if (!r.searched) {
      clear(decisionBox).append(head, h("p", { class: "small muted" }, "One sensible answer here: not searched."));
      return;
    }
    const order = r.candidates.map((c, i) => i).sort((a, b) => r.candidates[b].utility - r.candidates[a].utility);
    const rows = order.map((i) => {
      const c = r.candidates[i];
      const marks = [i === r.best_at ? "best" : "", i === r.taken_at ? "given" : ""].filter(Boolean).join(", ");
      return h("tr", { class: `${i === r.best_at ? "an-is-best" : ""} ${i === r.taken_at ? "an-is-taken" : ""}` },
        h("td", { "data-label": "Answer" }, c.label, marks ? h("span", { class: "an-tag" }, ` (${marks})`) : null),
        h("td", { "data-label": "Win chance", class: "num" }, `${pct(c.win)} ± ${(100 * c.win_se).toFixed(1)}`),
        h("td", { "data-label": "Margin", class: "num" }, `${signed(c.margin)} ± ${c.margin_se.toFixed(1)}`));
    });
    const verdict = r.best_at === r.taken_at
      ? h("p", { class: "an-verdict good" }, "The expert agrees with the answer given.")
      : h("p", { class: `an-verdict ${r.mistake ? "bad" : ""}` }, r.mistake ? `Mistake: ${r.mistake_kind}. ` : "Not a clear mistake. ",
        `The expert prefers "${r.best_label}": the answer given costs ${r.loss.toFixed(1)} ± ${r.loss_se.toFixed(1)} ${result.threshold.unit}.`);
    clear(decisionBox).append(head, verdict,
      h("div", { class: "table-wrap" }, h("table", { class: "an-candidates" },
        h("caption", { class: "sr-only" }, "The expert's candidates at this decision"),
        h("thead", {}, h("tr", {}, ["Answer", "Win chance", "Score margin"].map((t) => h("th", { scope: "col" }, t)))),
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
      return h("p", { class: "an-on-board good", "data-best": r.best_label }, `${names[result.seats[0]]}: ${r.taken_label}. The expert agrees.`);
    }
    return h("div", { class: `an-on-board${r.mistake ? " bad" : ""}`, "data-best": r.best_label },
      h("p", {}, `${r.mistake ? `Mistake: ${r.mistake_kind}. ` : ""}${names[result.seats[0]]}: ${r.taken_label} (win ${pct(taken.win)}).`),
      h("p", { class: "an-better" }, "The expert's answer: ", h("strong", {}, r.best_label), ` (win ${pct(best.win)}).`));
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
