// Refusals and errors from the server in the person's words. The server sends a code (the
// protocol's ERROR_CODES, the HTTP API's `code`, docs/server.md "Refusals over HTTP") beside its
// English `reason` (WebSocket) or `detail` (HTTP), which stays for bots, scripts and logs; the
// page shows the catalog's `web.error.{code}` (with `args` when the server sends some) and the
// English only for a code the catalog does not know. An action an engine refused (`rejected`
// with `rule`) is said from the catalog's `refusal.{rule}` instead.

import { t, has } from "./i18n.js";

/** The English of a refusal: a WebSocket error's reason, an HTTP body's detail (a string, or
 * FastAPI's list of {msg}). */
function english(msg) {
  if (msg.reason) return msg.reason;
  if (typeof msg.detail === "string") return msg.detail;
  if (Array.isArray(msg.detail)) return msg.detail.map((d) => (d && d.msg) || "").join("; ");
  return "";
}

/** An engine's refusal (a `rejected` frame's `rule` and `args`) from the catalog's
 * `refusal.{rule}`; `animal` is a species' English name, said as the catalog's `animal.{name}`
 * (as cardtable.i18n.refusal_args does). `null` for a rule the catalog does not know. */
function ruleRefusal(msg) {
  const key = `refusal.${msg.rule}`;
  if (typeof msg.rule !== "string" || !msg.rule || !has(key)) return null;
  const args = { ...(msg.args || {}) };
  if (typeof args.animal === "string") {
    const animal = `animal.${args.animal.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "")}`;
    if (has(animal)) args.animal = t(animal, { count: 1 });
  }
  return t(key, args);
}

export function refusal(msg) {
  msg = msg || {};
  const rule = ruleRefusal(msg);
  if (rule) return rule;
  const key = `web.error.${msg.code}`;
  return msg.code && has(key) ? t(key, msg.args || {}) : english(msg) || msg.code || "";
}

/** The person's words for an HTTP error reply: its JSON body (if any) and status. */
export async function httpRefusal(reply) {
  let data = {};
  try { data = await reply.json(); } catch (_) { /* not JSON */ }
  return refusal(data) || `${reply.status} ${reply.statusText || ""}`.trim();
}
