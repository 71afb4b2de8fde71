// People's accounts: the sign-in page (/signin), the account panel, and the small hooks other
// pages use (the lobby's "play as NAME", the rated choice, the invite link, "play again").
//
// The session lives in an HttpOnly cookie this script cannot read; GET /api/account says who is
// signed in and hands out the CSRF token that every POST echoes in X-CSRF-Token (docs/server.md,
// "Accounts"). A guest who signs up or signs in sends its resume token along, so the games it
// played in this browser move to the account.

import { h, clear, toast } from "./dom.js";
import { session, Session } from "./session.js";
import { t, csrfToken } from "./i18n.js";
import { refusal } from "./errors.js";

const GUEST_KEY = "cardtable.guest";

let current = null; // the last GET /api/account

/** Who is signed in (cached; `fresh` asks again). */
export async function account(fresh = false) {
  if (current && !fresh) return current;
  try {
    const reply = await fetch("/api/account", { headers: { Accept: "application/json" }, credentials: "same-origin" });
    current = reply.ok ? await reply.json() : { signed_in: false };
  } catch (_) {
    current = { signed_in: false };
  }
  return current;
}

/** A POST with the CSRF token; resolves to the JSON reply or throws its refusal.
 *
 * The token is the cookie's, read as the POST goes out, not the one of the answer the page read
 * last: a first visit asks GET /api/account twice at once (the header and the page), both
 * without a cookie, so the server hands each a token of its own; the cookie keeps the token whose
 * answer's head came last, the page the one whose body did (tests/web/test_csrf_race.py). */
async function post(path, body = {}) {
  const me = await account();
  const reply = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrfToken() || me.csrf_token || "" },
    body: JSON.stringify(body),
  });
  let data = {};
  try { data = await reply.json(); } catch (_) { /* 204 */ }
  if (!reply.ok) {
    // the server's code in the person's words (errors.js); its English detail only as a last resort
    const err = new Error(refusal(data) || `${reply.status}`);
    err.status = reply.status;
    throw err;
  }
  return data;
}

/** This browser's guest identity (its resume token), if it ever played as a guest. */
export function guestIdentity() {
  const saved = Session.saved();
  if (saved && saved.kind === "guest" && saved.token) return saved;
  try { return JSON.parse(localStorage.getItem(GUEST_KEY) || "null"); } catch (_) { return null; }
}

function keepGuest() {
  const saved = Session.saved();
  if (saved && saved.kind === "guest" && saved.token) localStorage.setItem(GUEST_KEY, JSON.stringify(saved));
}

/** The identity the lobby connects with: the signed-in person, else what the browser saved. */
export async function preferredIdentity() {
  const me = await account();
  if (me.signed_in) return { kind: "person", name: me.name };
  const saved = Session.saved();
  return saved && saved.kind !== "person" ? saved : null;
}

async function afterSignIn(me, navigate) {
  current = null;
  await account(true);
  keepGuest();
  session.disconnect();
  localStorage.setItem("cardtable.identity", JSON.stringify({ kind: "person", name: me.name }));
  try { await session.connect({ kind: "person", name: me.name }); } catch (err) { toast(err.message, "error"); }
  const back = new URLSearchParams(location.search).get("next");
  navigate(back && back.startsWith("/") && !back.startsWith("//") ? back : "/");
}

/** Sign out this browser (or everywhere); the tab goes on as nobody. */
export async function signOut(everywhere = false) {
  try {
    await post(everywhere ? "/api/account/signout-everywhere" : "/api/account/signout");
  } catch (err) {
    toast(err.message, "error");
    return false;
  }
  current = null;
  session.disconnect();
  Session.forget();
  const guest = guestIdentity();
  if (guest) localStorage.setItem("cardtable.identity", JSON.stringify(guest));
  await account(true);
  // the header's account link says so at once (no connection may close to tell it)
  document.dispatchEvent(new Event("cardtable:account"));
  toast(everywhere ? t("web.account.signed_out_everywhere") : t("web.account.signed_out"));
  return true;
}

function field(id, label, input, help) {
  input.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), input,
    help ? h("small", { class: "muted", id: `${id}-help` }, help) : null);
}

/** The sign-in page: sign in, create an account, or (signed in) the account's settings. */
export function renderSignIn(main, navigate) {
  clear(main).appendChild(h("p", { class: "muted" }, t("web.account.loading")));
  account(true).then((me) => {
    if (!main.isConnected) return;
    if (me.signed_in) drawAccount(main, me, navigate);
    else drawSignIn(main, navigate);
  });
}

function drawSignIn(main, navigate) {
  const guest = guestIdentity();
  const claimId = "acc-claim";
  const claim = () => (guest ? h("div", { class: "field check" },
    h("input", { type: "checkbox", id: claimId, checked: true, name: "claim" }),
    h("label", { for: claimId }, t("web.account.keep_guest_games", { name: guest.name }))) : null);
  const status = h("p", { class: "account-error", role: "alert" });
  const withClaim = (form, body) => {
    const box = form.querySelector("input[name=claim]");
    if (guest && box && box.checked) body.guest_token = guest.token;
    return body;
  };
  const signInName = h("input", { type: "text", name: "name", autocomplete: "username", required: true, maxlength: 32 });
  const signInPassword = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const signIn = h("form", { class: "panel account-form", "aria-labelledby": "signin-h", onsubmit: async (ev) => {
    ev.preventDefault();
    status.textContent = "";
    try {
      const me = await post("/api/account/signin", withClaim(signIn, { name: signInName.value, password: signInPassword.value }));
      if (me.claimed_games) toast(t("web.account.guest_games_moved", { count: me.claimed_games }));
      await afterSignIn(me, navigate);
    } catch (err) {
      status.textContent = err.message;
    }
  } }, h("h2", { id: "signin-h" }, t("web.nav.signin")),
  field("signin-name", t("web.account.name"), signInName), field("signin-password", t("web.account.password"), signInPassword),
  claim(), h("button", { type: "submit", class: "primary" }, t("web.nav.signin")));

  const upName = h("input", { type: "text", name: "name", autocomplete: "username", required: true, minlength: 2, maxlength: 32, value: guest ? guest.name : "" });
  const upPassword = h("input", { type: "password", name: "password", autocomplete: "new-password", required: true, minlength: 8, maxlength: 256, "aria-describedby": "signup-password-help" });
  const signUp = h("form", { class: "panel account-form", "aria-labelledby": "signup-h", onsubmit: async (ev) => {
    ev.preventDefault();
    status.textContent = "";
    try {
      const me = await post("/api/account/signup", withClaim(signUp, { name: upName.value, password: upPassword.value }));
      if (me.claimed_games) toast(t("web.account.guest_games_moved", { count: me.claimed_games }));
      await afterSignIn(me, navigate);
    } catch (err) {
      status.textContent = err.message;
    }
  } }, h("h2", { id: "signup-h" }, t("web.account.create_h")),
  field("signup-name", t("web.account.name"), upName, t("web.account.name_help")),
  field("signup-password", t("web.account.password"), upPassword, t("web.account.password_help")),
  claim(), h("button", { type: "submit", class: "primary" }, t("web.account.create")));

  clear(main).appendChild(h("div", { class: "account-page" },
    h("h1", {}, t("web.nav.signin")),
    h("p", { class: "lead" }, t("web.account.lead"), " ",
      h("a", { href: "/" }, t("web.account.go_on_as_guest"))),
    status,
    h("div", { class: "account-forms" }, signIn, signUp)));
}

function drawAccount(main, me, navigate) {
  const status = h("p", { class: "account-error", role: "alert" });
  const old = h("input", { type: "password", autocomplete: "current-password", required: true });
  const fresh = h("input", { type: "password", autocomplete: "new-password", required: true, minlength: 8 });
  const change = h("form", { class: "panel account-form", "aria-labelledby": "pw-h", onsubmit: async (ev) => {
    ev.preventDefault();
    status.textContent = "";
    try {
      await post("/api/account/password", { old: old.value, new: fresh.value });
      old.value = ""; fresh.value = "";
      toast(t("web.account.password_changed"));
    } catch (err) { status.textContent = err.message; }
  } }, h("h2", { id: "pw-h" }, t("web.account.change_password")),
  field("pw-old", t("web.account.current_password"), old), field("pw-new", t("web.account.new_password"), fresh),
  h("button", { type: "submit" }, t("web.account.change_password")));
  const guest = guestIdentity();
  const claimBox = guest ? h("section", { class: "panel", "aria-labelledby": "claim-h" },
    h("h2", { id: "claim-h" }, t("web.account.guest_games")),
    h("p", {}, t("web.account.move_guest_games", { name: guest.name })),
    h("button", { type: "button", onclick: async () => {
      try {
        const reply = await post("/api/account/claim", { guest_token: guest.token });
        toast(t("web.account.games_moved", { count: reply.claimed_games }));
      } catch (err) { status.textContent = err.message; }
    } }, t("web.account.move_them"))) : null;
  clear(main).appendChild(h("div", { class: "account-page" },
    h("h1", {}, t("web.account.your_account")),
    h("p", { class: "lead" }, t("web.account.signed_in_as"), " ", h("strong", {}, me.name), ". ",
      h("a", { href: `/players/${encodeURIComponent(me.name)}` }, t("web.account.your_profile")), " · ", h("a", { href: "/" }, t("web.account.play"))),
    status,
    h("div", { class: "account-forms" },
      h("section", { class: "panel", "aria-labelledby": "out-h" }, h("h2", { id: "out-h" }, t("web.lobby.sign_out")),
        h("div", { class: "row" },
          h("button", { type: "button", onclick: async () => { if (await signOut(false)) navigate("/"); } }, t("web.lobby.sign_out")),
          h("button", { type: "button", onclick: async () => { if (await signOut(true)) navigate("/"); } }, t("web.account.sign_out_everywhere")))),
      change, claimBox)));
}

/** The lobby's box for people with an account (shown when no identity is connected). */
export function accountBox(connect) {
  // a line of about the answer's length holds its place, so the forms below do not move when it
  // comes (a click on the bot sign-in's summary, made as the page shifted, would land elsewhere)
  const box = h("div", { class: "account-box" }, h("p", { class: "muted" }, t("web.account.checking")));
  account().then((me) => {
    if (me.signed_in) {
      clear(box).append(h("p", {}, t("web.account.signed_in_as"), " ", h("strong", {}, me.name), ". "),
        h("button", { type: "button", class: "primary", onclick: () => connect({ kind: "person", name: me.name }) }, t("web.account.play_as", { name: me.name })));
    } else {
      clear(box).append(h("p", {}, h("a", { href: "/signin" }, t("web.account.sign_in_or_create")),
        " ", t("web.account.for_rating")));
    }
  });
  return box;
}

/** The "rated" choice of the lobby's forms: only for people with an account and bots. */
export function ratedChoice(id) {
  if (!session.connected || session.you.kind === "guest") return { control: null, read: () => false };
  const box = h("input", { type: "checkbox", id, name: "rated" });
  return {
    control: h("div", { class: "field check" }, box, h("label", { for: id }, t("web.account.rated_game"))),
    read: () => box.checked,
  };
}

/** "rated" / "unrated" as the lobby says it. */
export function ratedWords(rated) {
  return rated ? h("span", { class: "tag rated" }, t("web.account.rated")) : h("span", { class: "tag unrated" }, t("web.account.unrated"));
}

/** The invite as a link a friend can open (the lobby joins the table by itself). */
export function inviteLink(code) {
  const url = `${location.origin}/?invite=${encodeURIComponent(code)}`;
  return h("p", { class: "invite-link" }, t("web.account.invite_link"), " ",
    h("a", { href: url, "data-invite-link": code }, url), " ",
    h("button", { type: "button", onclick: async () => {
      try { await navigator.clipboard.writeText(url); toast(t("web.account.link_copied")); } catch (_) { toast(url); }
    } }, t("web.account.copy_link")));
}

/** An invite code in the address (/?invite=CODE) once the lobby's identity is connected. */
export function pendingInvite() {
  const code = new URLSearchParams(location.search).get("invite");
  return code ? code.trim().toUpperCase() : null;
}

/**
 * The end-of-game "Play again" button (table.js's result panel): the same seats and rules.
 * Each person confirms by pressing it; the house bots come back by themselves.
 */
export function playAgain(gameId, start, navigate) {
  if (!start || !["practice", "private"].includes(start.lobby) || start.seat === null) return null;
  const status = h("span", { class: "again-status", role: "status" });
  // a rematch offered by another player (lichess): who offers, accept or decline
  const offer = h("span", { class: "rematch-offer", hidden: true });
  const ask = () => {
    session.send({ type: "join", lobby: "private", again: gameId });
    button.disabled = true;
    offer.hidden = true;
    status.textContent = t("web.account.waiting_others");
  };
  const button = h("button", { type: "button", class: "primary", "data-again": gameId, onclick: () => {
    try { ask(); } catch (err) { status.textContent = err.message; }
  } }, t("web.account.play_again"));
  function showOffer(data) {
    const people = data.players.filter((p) => !p.startsWith("house-"));
    const accept = h("button", { type: "button", class: "primary", "data-accept-rematch": gameId, onclick: () => {
      try { ask(); } catch (err) { status.textContent = err.message; }
    } }, t("web.account.accept"));
    const decline = h("button", { type: "button", "data-decline-rematch": gameId, onclick: () => {
      try { session.send({ type: "leave", again: gameId }); } catch (err) { status.textContent = err.message; return; }
      offer.hidden = true;
      status.textContent = t("web.account.you_declined");
    } }, t("web.account.decline"));
    clear(offer).append(h("strong", {}, t("web.account.offers_rematch", { names: people.join(", "), count: people.length })), " ", t("web.account.same_seats"), " ", accept, " ", decline);
    offer.hidden = false;
    status.textContent = "";
    if (offer.isConnected) accept.focus({ preventScroll: true });
  }
  const off = session.on((kind, data) => {
    if (!button.isConnected) { off(); return; }
    if (kind === "table" && data.again === gameId) {
      const waiting = data.open_seats;
      status.textContent = waiting ? t("web.account.waiting_more", { count: waiting, names: data.players.join(", ") }) : t("web.account.starting");
    } else if (kind === "rematch_offer" && data.again === gameId && !button.disabled) {
      showOffer(data);
    } else if (kind === "declined" && data.again === gameId) {
      status.textContent = t("web.account.declined", { name: data.name });
    } else if (kind === "game" && data.start && data.id !== gameId && !data.end) {
      off();
      navigate(`/table/${data.id}`);
    } else if (kind === "error" && button.disabled && ["bad_join", "unknown_game", "busy"].includes(data.code)) {
      status.textContent = refusal(data);
      button.disabled = data.code === "unknown_game";
    }
  });
  const early = session.offers.get(gameId); // offered before this panel was drawn
  if (early) showOffer(early);
  return h("span", { class: "play-again" }, offer, button, status);
}
