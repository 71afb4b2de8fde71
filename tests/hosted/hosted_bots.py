"""Shared by tests/hosted: archives of the starter kits and hostile programs."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KITS = REPO / "examples" / "stdio"

#: A Python bot that says hello on stderr and plays as the Python starter kit.
TALKING = """import sys
print("hosted hello from", sys.argv[0], file=sys.stderr, flush=True)
import bot
bot.main()
"""


def manifest(name: str, language: str, entry: str) -> bytes:
    return json.dumps({"name": name, "language": language, "entry": entry}).encode()


def tar_gz(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def zip_bytes(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return out.getvalue()


def python_bot(name: str = "py") -> dict[str, bytes]:
    return {
        "cardtable.json": manifest(name, "python", "main.py"),
        "main.py": TALKING.encode(),
        "bot.py": (KITS / "python" / "bot.py").read_bytes(),
    }


def c_bot(name: str = "c") -> dict[str, bytes]:
    return {
        "cardtable.json": manifest(name, "c", "bot.c"),
        "bot.c": (KITS / "c" / "bot.c").read_bytes(),
    }
