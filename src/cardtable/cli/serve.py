"""``cardtable serve``: run the competition server (HTTP API, WebSocket, lobbies)."""

from __future__ import annotations

import argparse
import logging
import sys

HELP = "run the competition server (HTTP API at /api, docs at /docs, WebSocket at /ws)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default 8000; 0 picks a free one)")
    parser.add_argument(
        "--db",
        help="database URL: sqlite:///path.db (default sqlite:///var/cardtable.db) or "
        "postgresql+psycopg://user@host/db",
    )
    parser.add_argument("--config", help="TOML settings file (see docs/server.md)")
    parser.add_argument("--instance", help="name of this server process (several share one db)")
    parser.add_argument("--log-level", dest="log_level", help="debug, info, warning, error")


def run(args: argparse.Namespace) -> int:
    import socket

    import uvicorn

    from cardtable.server.app import create_app
    from cardtable.server.config import load_settings

    settings = load_settings(
        args.config,
        overrides={
            "host": args.host,
            "port": args.port,
            "db": args.db,
            "instance": args.instance,
            "log_level": args.log_level,
        },
    )
    level = getattr(logging, settings.log_level.upper(), logging.INFO)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("cardtable").setLevel(level)
    sock = socket.socket(socket.AF_INET6 if ":" in settings.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        raise ValueError(f"cannot listen on {settings.host}:{settings.port}: {exc}") from None
    settings.port = sock.getsockname()[1]
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        log_level=settings.log_level.lower(),
        ws="websockets-sansio",
        # frames up to 4x the protocol limit reach us and get a clear too_large error;
        # larger ones are cut by the WebSocket layer (close code 1009)
        ws_max_size=settings.max_frame_bytes * 4,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        access_log=False,
    )
    server = uvicorn.Server(config)
    url = settings.public_url
    print(
        f"cardtable server: {url}  (API docs {url}/docs, WebSocket "
        f"ws://{settings.host}:{settings.port}/ws, database {_safe_db(settings.db)})",
        flush=True,
    )
    server.run(sockets=[sock])
    return 0 if not server.should_exit or server.started else 1


def _safe_db(url: str) -> str:
    """The database URL without a password (never print credentials)."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@")[-1]


if __name__ == "__main__":  # pragma: no cover
    from cardtable.cli import main

    sys.exit(main(["serve", *sys.argv[1:]]))
