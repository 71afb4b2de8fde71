"""What a server process imports is what serving needs: every ``cardtable serve`` (an operator's,
or one of the many the tests start) pays the CPU of each module it imports, at every start."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

#: Modules the server never runs: the bot client library, the stdio adapter, the offline arena.
NOT_SERVING = (
    "cardtable.client",
    "cardtable.stdio.agent",
    "cardtable.arena.ab",
    "cardtable.arena.tournament",
    "websockets.asyncio.client",
)


def test_the_server_app_imports_neither_the_client_nor_the_offline_arena() -> None:
    """A fresh interpreter importing the app: the packages it takes a few names from
    (``cardtable.arena``, ``cardtable.stdio``) import the rest of themselves on first use."""
    code = (
        "import sys, cardtable.server.app; "
        f"print(sorted(m for m in {NOT_SERVING!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("package", ["cardtable.arena", "cardtable.stdio"])
def test_a_lazy_package_names_what_it_imports_for_the_type_checker(package: str) -> None:
    """Each name a package exports on first use comes from the module its ``TYPE_CHECKING``
    import names (what mypy sees is what a caller gets), and every exported name resolves."""
    module = importlib.import_module(package)
    tree = ast.parse(Path(str(module.__file__)).read_text())
    declared = {
        alias.name: node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(package)
        for alias in node.names
    }
    assert sorted(module.__all__) == sorted(declared)
    for name in module.__all__:
        value = getattr(module, name)
        assert getattr(importlib.import_module(declared[name]), name) is value
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_a_server_start_neither_imports_jsonschema_nor_derives_the_confusables() -> None:
    """What a ``cardtable serve`` does before its first request (the app's import and the
    warm-ups of its lifespan) leaves out two costs measured at every start: `jsonschema` (28 ms
    of CPU to import, 17 ms to check the client schemas: the reference validator words refusals,
    schema.protocol_validator) and the derivation of the confusables' prototypes (46 ms: the
    server reads names.PROTOTYPES_FILE instead)."""
    code = (
        "import sys\n"
        "import cardtable.server.app\n"
        "from cardtable.server import names\n"
        "from cardtable.protocol.messages import warm_client_checks\n"
        "def derive(data):\n"
        "    raise AssertionError('the prototypes were derived at start')\n"
        "names.derive_prototypes = derive\n"
        "names.skeleton('warm')\n"
        "warm_client_checks()\n"
        "print(sorted(m for m in ('jsonschema', 'referencing') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]", "jsonschema is imported at start again"


def test_the_hosted_bot_worker_imports_neither_the_database_layer_nor_the_web_framework() -> None:
    """A ``cardtable hosted-worker`` is a client of the server (HTTP, the bot protocol): it takes
    hosted_token from submissions.login, whose stores are imported by the functions that use
    them. With them, SQLAlchemy and the server's store cost each worker 0.14 s of CPU at start
    (measured: 233 ms to import the command, 96 ms without)."""
    code = (
        "import sys, cardtable.cli.hosted_worker, cardtable.hosted.worker; "
        "print(sorted(m for m in ('sqlalchemy', 'fastapi', 'cardtable.server.store') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_the_supervisor_of_serve_workers_imports_no_server() -> None:
    """``cardtable serve --workers N`` supervises N ``cardtable serve`` processes and serves
    nothing itself: it reaches its workers without importing the app (which cost it 0.4 s of
    CPU at start). A SQLite --db stops it there (the workers need PostgreSQL and Redis)."""
    code = (
        "import sys\n"
        "from cardtable.cli import main\n"
        "try:\n"
        "    main(['serve', '--workers', '2', '--port', '0', '--db', 'sqlite:///unused.db'])\n"
        "except ValueError as exc:\n"
        "    print('refused:', exc)\n"
        "print(sorted(m for m in ('fastapi', 'sqlalchemy', 'uvicorn') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "--workers needs" in done.stdout + done.stderr
    assert done.stdout.strip().endswith("[]"), done.stdout
