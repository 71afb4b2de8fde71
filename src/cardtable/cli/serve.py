"""``cardtable serve``: run the competition server (HTTP API, WebSocket, lobbies)."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

HELP = "run the competition server (HTTP API at /api, docs at /docs, WebSocket at /ws)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default 8000; 0 picks a free one)")
    parser.add_argument(
        "--db",
        "--database-url",
        dest="db",
        help="database URL: sqlite:///path.db (default sqlite:///var/cardtable.db) or "
        "postgresql+psycopg://user@host/db (env CARDTABLE_DB)",
    )
    parser.add_argument(
        "--redis-url",
        dest="redis_url",
        help="redis://host:6379/0: run as one process of a cluster sharing this Redis and a "
        "PostgreSQL --db (env CARDTABLE_REDIS_URL; see docs/server.md)",
    )
    parser.add_argument(
        "--redis-prefix", dest="redis_prefix", help="prefix of the cluster's Redis keys"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="start N server processes on one port (SO_REUSEPORT), restarted when they die; "
        "needs --redis-url and a PostgreSQL --db",
    )
    parser.add_argument(
        "--reuse-port",
        action="store_true",
        help="listen with SO_REUSEPORT (several processes on one port; --workers does this)",
    )
    parser.add_argument(
        "--trusted-proxies",
        dest="trusted_proxies",
        help="reverse proxies whose X-Forwarded-For is believed, comma-separated addresses or "
        "networks (default none; env CARDTABLE_TRUSTED_PROXIES; docs/server.md, 'Running it in "
        "public')",
    )
    parser.add_argument("--config", help="TOML settings file (see docs/server.md)")
    parser.add_argument("--instance", help="name of this server process (several share one db)")
    parser.add_argument("--log-level", dest="log_level", help="debug, info, warning, error")


def run(args: argparse.Namespace) -> int:
    import socket

    from cardtable.server.config import load_settings

    settings = load_settings(
        args.config,
        overrides={
            "host": args.host,
            "port": args.port,
            "db": args.db,
            "instance": args.instance,
            "log_level": args.log_level,
            "redis_url": args.redis_url,
            "redis_prefix": args.redis_prefix,
            "trusted_proxies": _addresses(args.trusted_proxies),
        },
    )
    from cardtable.server import oplog

    level = getattr(logging, settings.log_level.upper(), logging.INFO)
    oplog.configure(level, settings.log_format)  # text or JSON lines (log_format)
    if args.workers > 1:  # a supervisor of worker processes: it imports no server
        return _workers(args, settings)
    from cardtable.core.compiled import build_line
    from cardtable.server.app import create_app
    from cardtable.server.departure import LeavingServer
    from cardtable.server.limits import uvicorn_config

    sock = socket.socket(socket.AF_INET6 if ":" in settings.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if args.reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        raise ValueError(f"cannot listen on {settings.host}:{settings.port}: {exc}") from None
    settings.port = sock.getsockname()[1]
    if settings.rebalance_ms < 0:  # a reconnection may reach another process on a shared port
        settings.rebalance_ms = 3000 if args.reuse_port else 0
    app = create_app(settings)
    # the limits against abuse (connections per address, header timeout, frame sizes...) live
    # in the protocol classes uvicorn_config picks (server/limits.py)
    # log_config=None: uvicorn's lines go through the process's handler (oplog.configure)
    config = uvicorn_config(app, settings, log_config=None)

    def leaving() -> None:  # before the sockets close: they cost their bots no fault
        hub = getattr(app.state, "hub", None)
        if hub is not None:
            hub.leaving = True

    server = LeavingServer(config, leaving)
    url = settings.public_url
    print(
        f"cardtable server: {url}  (API docs {url}/docs, WebSocket "
        f"ws://{settings.host}:{settings.port}/ws, database {_safe_db(settings.db)})",
        flush=True,
    )
    print(build_line(), flush=True)
    server.run(sockets=[sock])
    return 0 if not server.should_exit or server.started else 1


def _workers(args: argparse.Namespace, settings: Any) -> int:
    """``--workers N``: N ``cardtable serve --reuse-port`` processes on one port, each a process
    of the cluster (Redis + PostgreSQL); one that dies is started again."""
    import signal
    import socket
    import subprocess
    import time

    if not settings.redis_url:
        raise ValueError("--workers needs --redis-url (the processes share their state there)")
    if settings.db.startswith("sqlite"):
        raise ValueError("--workers needs a PostgreSQL --db (SQLite is for one process)")
    # hold the port (bound, not listening: it takes no connections) so that port 0 names one
    # port for all workers
    sock = socket.socket(socket.AF_INET6 if ":" in settings.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        raise ValueError(f"cannot listen on {settings.host}:{settings.port}: {exc}") from None
    port = sock.getsockname()[1]
    base = [
        sys.executable,
        "-c",
        "import sys; from cardtable.cli import main; sys.exit(main(sys.argv[1:]))",
        "serve",
        "--reuse-port",
        "--host",
        settings.host,
        "--port",
        str(port),
        "--db",
        settings.db,
        "--redis-url",
        settings.redis_url,
        "--redis-prefix",
        settings.redis_prefix,
        "--log-level",
        settings.log_level,
    ]
    if args.config:
        base += ["--config", args.config]
    if settings.trusted_proxies:
        base += ["--trusted-proxies", ",".join(settings.trusted_proxies)]
    print(
        f"cardtable server: http://{settings.host}:{port}  ({args.workers} workers on one port, "
        f"database {_safe_db(settings.db)})",
        flush=True,
    )
    stopping = False

    def start(i: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen([*base, "--instance", f"{settings.instance}{i + 1}"])

    def stop(_signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    procs = [start(i) for i in range(args.workers)]
    try:
        while not stopping:
            time.sleep(0.2)
            for i, proc in enumerate(procs):
                if proc.poll() is not None and not stopping:
                    logging.getLogger("cardtable.server").warning(
                        "worker %d exited (%s); starting it again", i + 1, proc.returncode
                    )
                    procs[i] = start(i)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        end = time.monotonic() + 20
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
        sock.close()
    return 0


def _safe_db(url: str) -> str:
    """The database URL without a password (never print credentials)."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@")[-1]


def _addresses(text: str | None) -> list[str] | None:
    """A comma-separated flag as a list (``None``: not given)."""
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]


if __name__ == "__main__":  # pragma: no cover
    from cardtable.cli import main

    sys.exit(main(["serve", *sys.argv[1:]]))
