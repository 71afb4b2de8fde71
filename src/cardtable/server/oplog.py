"""The operator's log: one line per HTTP request and one per game end, text or JSON.

What it owns:

- :class:`AccessLog`, the outermost ASGI middleware: for every HTTP request (not WebSocket
  frames) one line on the logger ``cardtable.access`` with the method, the **route** (the
  path's template, ``/api/games/{game_id}``: never the query string, so no ``token=...``), the
  status, the duration and the client's address, and the count per (method, route, status)
  that ``GET /metrics`` serves (:class:`RequestCounts`). No header is read, so no cookie,
  ``Authorization`` or password can reach the log.
- :func:`game_ended`: one line on ``cardtable.games`` per game that ended (game id, game, rules,
  lobby, the seats' names, the result, the duration, the faults recorded), and the count of
  ended games by game and termination.
- :class:`JsonFormatter` and :func:`configure`: with the setting ``log_format = "json"`` every
  log line of the process is one JSON object (``ts``, ``level``, ``logger``, ``message`` and the
  line's fields); with ``"text"`` (the default) the fields follow the message as ``key=value``.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

LOG_FORMATS = ("text", "json")
#: Methods counted and logged by name; any other (a client may send any token) is ``OTHER``, so
#: strangers cannot add series to ``GET /metrics`` without bound.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

access_log = logging.getLogger("cardtable.access")
games_log = logging.getLogger("cardtable.games")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class RequestCounts:
    """HTTP requests answered by this process, by (method, route, status)."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str, int]] = Counter()


def route_of(scope: Scope) -> str:
    """The path's template once routing has run (``/api/bots/{name}``); ``unmatched`` when no
    route took it (a 404 or a refusal before routing), so strangers' paths add no series."""
    route = scope.get("route")
    path = getattr(route, "path", None) or getattr(route, "path_format", None)
    if isinstance(path, str):
        return path
    mount = scope.get("root_path", "")
    return f"{mount}/*" if mount else "unmatched"


class AccessLog:
    """ASGI middleware: one log line and one count per HTTP request (see the module's doc)."""

    def __init__(self, app: ASGIApp, counts: RequestCounts) -> None:
        self.app = app
        self.counts = counts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the client gets when the app raises before answering

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = route_of(scope)
            method = str(scope.get("method", ""))
            method = method if method in METHODS else "OTHER"
            self.counts.counts[(method, route, status)] += 1
            if access_log.isEnabledFor(logging.INFO):
                client = scope.get("client")
                fields = {
                    "event": "http_request",
                    "method": method,
                    "route": route,
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000.0, 2),
                    "client": client[0] if client else None,
                }
                access_log.info("%s %s %d", method, route, status, extra={"fields": fields})


def game_ended(metrics: Any, table: Any, result: Any) -> None:
    """Count and log a game that ended at ``table`` with ``result`` (a ``core`` Result)."""
    termination = str(getattr(result.termination, "value", result.termination))
    metrics.games_ended[(table.spec.name, termination)] += 1
    if not games_log.isEnabledFor(logging.INFO):
        return
    fields = {
        "event": "game_end",
        "game_id": table.id,
        "game": table.spec.name,
        "rules": table.setup.rules_name,
        "lobby": table.setup.lobby,
        "seats": list(table.names),
        "termination": termination,
        "places": list(result.places),
        "scores": list(result.scores),
        "duration_s": round(time.time() - table.started_at, 3),
        "faults": len(table.faults),
    }
    games_log.info(
        "game %s ended: %s %s", table.id, termination, list(result.places), extra={"fields": fields}
    )


class JsonFormatter(logging.Formatter):
    """A log record as one JSON object: ``ts`` (UTC, ISO 8601), ``level``, ``logger``,
    ``message`` and the record's ``fields`` (``extra={"fields": {...}}``)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update(fields)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """The usual text line, the record's ``fields`` after it as ``key=value``."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line += " " + " ".join(
                f"{k}={json.dumps(v, ensure_ascii=False, default=str)}"
                for k, v in fields.items()
                if k != "event"
            )
        return line


def formatter(log_format: str) -> logging.Formatter:
    """The formatter of ``log_format`` (one of :data:`LOG_FORMATS`)."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"log_format must be one of {', '.join(LOG_FORMATS)}, not {log_format!r}")
    return JsonFormatter() if log_format == "json" else TextFormatter()


def configure(level: int, log_format: str) -> None:
    """Log the process's lines (ours, uvicorn's) to stderr at ``level`` in ``log_format``."""
    handler = logging.StreamHandler()
    handler.setFormatter(formatter(log_format))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("cardtable").setLevel(level)
    # uvicorn's own handlers would print its lines a second time, in its format
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
