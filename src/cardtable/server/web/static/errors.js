// Refusals and errors from the server in the person's words. The server sends a code (the
// protocol's ERROR_CODES, the HTTP API's `code`, docs/server.md "Refusals over HTTP") beside its
// English `reason` (WebSocket) or `detail` (HTTP), which stays for bots, scripts and logs; the
// page shows the catalog's `web.error.{code}` (with `args` when the server sends some) and the
// English only for a code the catalog does not know.

import { t, has } from "./i18n.js";

/** The English of a refusal: a WebSocket error's reason, an HTTP body's detail (a string, or
 * FastAPI's list of {msg}). */
function english(msg) {
  if (msg.reason) return msg.reason;
  if (typeof msg.detail === "string") return msg.detail;
  if (Array.isArray(msg.detail)) return msg.detail.map((d) => (d && d.msg) || "").join("; ");
  return "";
}

export function refusal(msg) {
  msg = msg || {};
  const key = `web.error.${msg.code}`;
  return msg.code && has(key) ? t(key, msg.args || {}) : english(msg) || msg.code || "";
}

/** The person's words for an HTTP error reply: its JSON body (if any) and status. */
export async function httpRefusal(reply) {
  let data = {};
  try { data = await reply.json(); } catch (_) { /* not JSON */ }
  return refusal(data) || `${reply.status} ${reply.statusText || ""}`.trim();
}
