// Refusals and errors from the server in the person's words. The server sends a code (the
// protocol's ERROR_CODES, the HTTP API's `code`) beside its English `reason`, which stays for
// bots and logs; the page shows the catalog's `web.error.{code}` (with `args` when the server
// sends some) and the reason only for a code the catalog does not know.

import { t, has } from "./i18n.js";

export function refusal(msg) {
  const key = `web.error.${msg.code}`;
  return msg.code && has(key) ? t(key, msg.args || {}) : msg.reason || msg.code || "";
}
