"""Shared by tests/hosted: archives of the starter kits and hostile programs."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KITS = REPO / "examples" / "stdio"
#: the machine's Redis, for the tests of the hosted workers' leases (tests/hosted/conftest.py)
REDIS = "redis://127.0.0.1:6379/0"

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


#: A program that plays as the starter kit until its first request, then misbehaves as its
#: first argument says: ``network`` (connects to the host's port argv[2] and looks up a name),
#: ``write`` (writes each path of argv[2:]), ``fork`` (forks without end), ``memory``
#: (allocates without end), ``spin`` (computes without end).
HOSTILE = r"""
import json, os, socket, sys, time
import bot
mode = sys.argv[1]
def say(message):
    sys.stdout.write(json.dumps(message) + "\n"); sys.stdout.flush()
def tell(text):
    sys.stderr.write(text + "\n"); sys.stderr.flush()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        say({"type": "ready", "name": "hostile-" + mode})
    elif message["type"] == "bye":
        break
    elif message["type"] == "request":
        if mode == "network":
            said = []
            try:
                socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=2)
                said.append("CONNECTED")
            except OSError as exc:
                said.append(f"connect: {exc}")
            try:
                socket.getaddrinfo("localhost", 80)
                said.append("RESOLVED")
            except OSError as exc:
                said.append(f"lookup: {exc}")
            tell(" / ".join(said)); sys.exit(5)
        if mode == "write":
            for target in sys.argv[2:]:
                try:
                    with open(target, "w") as out:
                        out.write("x")
                    tell(f"WROTE {target}")
                except OSError as exc:
                    tell(f"{target}: {exc.strerror}")
            sys.exit(6)
        if mode == "fork":
            born = 0
            while True:
                try:
                    if os.fork() == 0:
                        time.sleep(3600); os._exit(0)
                    born += 1
                except OSError as exc:
                    tell(f"fork failed after {born}: {exc.strerror}")
                    time.sleep(3600)
        if mode == "memory":
            hoard = []
            while True:
                hoard.append(bytearray(16 * 1024 * 1024))
        if mode == "spin":
            while True:
                pass
        say({"type": "action", "id": message["id"],
             "action": bot.choose(message["observation"], message["request"])})
"""


def hostile_folder(folder: Path) -> Path:
    from cardtable.server.submissions.archive import write_files

    write_files(
        {"bot.py": (KITS / "python" / "bot.py").read_bytes(), "hostile.py": HOSTILE.encode()},
        folder,
    )
    return folder
